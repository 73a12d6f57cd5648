#!/usr/bin/env python3
"""Writes FILES small files in the current directory, 100 per directory:
src/d0000/f000000.txt ... (the trees of bench/checkpoints.sh and
bench/clean_check.sh).

    python3 bench/tree.py FILES
"""
import os
import sys

for i in range(int(sys.argv[1])):
    d = f"src/d{i // 100:04d}"
    os.makedirs(d, exist_ok=True)
    with open(f"{d}/f{i:06d}.txt", "w") as f:
        f.write(f"file {i}\n")
