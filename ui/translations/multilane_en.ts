<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>multilane::MainWindow</name>
    <message numerus="yes">
        <source>Added %n file(s)</source>
        <translation>
            <numerusform>Added %n file</numerusform>
            <numerusform>Added %n files</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>  and %n more</source>
        <translation>
            <numerusform>  and %n more</numerusform>
            <numerusform>  and %n more</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) (%1) did not finish uploading last time:</source>
        <translation>
            <numerusform>%n file (%1) did not finish uploading last time:</numerusform>
            <numerusform>%n files (%1) did not finish uploading last time:</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>multilane::StatusPanel</name>
    <message numerus="yes">
        <source>%1 of %2 · %3 of %n file(s)</source>
        <translation>
            <numerusform>%1 of %2 · %3 of %n file</numerusform>
            <numerusform>%1 of %2 · %3 of %n files</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source> · %n failed</source>
        <translation>
            <numerusform> · %n failed</numerusform>
            <numerusform> · %n failed</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n connection(s)</source>
        <translation>
            <numerusform>%n connection</numerusform>
            <numerusform>%n connections</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1: %n open</source>
        <translation>
            <numerusform>%1: %n open</numerusform>
            <numerusform>%1: %n open</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Online · %n not answering</source>
        <translation>
            <numerusform>Online · %n not answering</numerusform>
            <numerusform>Online · %n not answering</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>multilane::TransferController</name>
    <message numerus="yes">
        <source>%n file(s) uploaded (%1)</source>
        <translation>
            <numerusform>%n file uploaded (%1)</numerusform>
            <numerusform>%n files uploaded (%1)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>— %n failed; retry them from the list</source>
        <translation>
            <numerusform>— %n failed; retry it from the list</numerusform>
            <numerusform>— %n failed; retry them from the list</numerusform>
        </translation>
    </message>
</context>
</TS>
