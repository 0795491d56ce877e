"""Per-kernel table of an Nsight Compute CSV (ncu --csv --metrics
gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum): each
kernel's time, DRAM bytes and their rate, and the sum.
Usage: python3 tests/gpu/ncu_table.py ncu.csv"""
import csv
import sys

SCALE = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9,
         "nsecond": 1, "usecond": 1e3, "msecond": 1e6}


def main(path):
    rows = [r for r in csv.reader(open(path)) if len(r) > 10]
    if not rows:
        print(f"{path}: no Nsight Compute rows")
        return 1
    h = rows[0]
    k, m, v = h.index("Kernel Name"), h.index("Metric Name"), h.index("Metric Value")
    u, i = h.index("Metric Unit"), h.index("ID")
    per = {}
    for r in rows[1:]:
        d = per.setdefault(r[i], {"name": r[k]})
        d[r[m]] = float(r[v].replace(",", "")) * SCALE.get(r[u], 1)
    tot_ns = tot_b = 0
    for key in sorted(per, key=int):
        d = per[key]
        ns = d.get("gpu__time_duration.sum", 0)
        b = d.get("dram__bytes_read.sum", 0) + d.get("dram__bytes_write.sum", 0)
        tot_ns += ns
        tot_b += b
        print(f"{d['name'][:34]:34s} {ns / 1e3:8.2f} us {b / 1e6:8.2f} MB {b / ns if ns else 0:7.1f} GB/s")
    print(f"{'sum':34s} {tot_ns / 1e3:8.2f} us {tot_b / 1e6:8.2f} MB "
          f"{tot_b / tot_ns if tot_ns else 0:7.1f} GB/s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
