#!/usr/bin/env python3
"""The link-family chart: each row's fraction of the uplink, Multilane beside curl with 8 files
at once, with the two targets drawn across. Reads the JSON that link_family.py writes, so a chart
can be made again from a stored run: python3 bench/family/chart.py RUN.json OUT.png"""
import json
import os
import subprocess
import sys
import tempfile

CLIENTS = ("multilane", "curl8")


def write_chart(run_json, png):
    run = json.load(open(run_json))
    clients = [c for c in CLIENTS if any(c in row for row in run["rows"])]
    with tempfile.NamedTemporaryFile("w", suffix=".dat", delete=False) as data:
        data.write('"row" ' + " ".join(f'"{c}"' for c in clients) + "\n")
        for row in run["rows"]:
            label = f'{row["link"]["index"]} {row["link"]["kind"]} {row["workload"]}'
            values = []
            for client in clients:
                fraction = (row.get(client) or {}).get("fraction")
                values.append("NaN" if fraction is None else f"{fraction:.4f}")
            data.write(f'"{label}" ' + " ".join(values) + "\n")
    script = f"""
set terminal pngcairo size 1600,600 font "DejaVu Sans,10"
set output "{png}"
set title "Link family, seed {run['seed']}: fraction of the uplink by link and workload (higher is better)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set yrange [0:1.05]
set ylabel "fraction of the uplink"
set xtics rotate by -60 font ",8"
set key below horizontal
plot for [i=2:{len(clients) + 1}] "{data.name}" using i:xtic(1) title columnheader(i), \\
     0.95 with lines dashtype 2 lc rgb "#aa0000" title "target: 10 s of data or more", \\
     0.90 with lines dashtype 3 lc rgb "#aa6600" title "target: 3 s, round trip up to 100 ms"
"""
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
    finally:
        os.unlink(data.name)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: chart.py RUN.json OUT.png")
    write_chart(sys.argv[1], sys.argv[2])
