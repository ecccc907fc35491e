#!/usr/bin/env python3
"""Writes rocjitsu configs for gfx1101, gfx1102, gfx1103 and gfx1200 (tools/rocjitsu/configs/README.md).

Each is rocjitsu's own config of the same ISA family (configs/gfx1100_w7900.json for RDNA3,
configs/gfx1201_r9700.json for RDNA4, at the pinned commit) with the device identity and the shader-engine /
compute-unit topology of one public product of the target. Usage:

    derive-configs.py ROCJITSU_SRC OUT_DIR
"""
import copy
import json
import sys

# Public facts per product (AMD's product pages and the amdgpu kernel driver's PCI ids / family ids).
# se: shader engines, cu: compute units (2 SIMDs each), l2: KiB, mem: bytes, bus: bits, clk: MHz.
PRODUCTS = {
    "gfx1101": dict(base="gfx1100", file="gfx1101_rx7800xt.json", name="AMD Radeon RX 7800 XT", device_id=0x747E,
                    family_id=145, version=110001, se=3, cu=60, l2=4096, mem=16 << 30, bus=256, mem_clk=1219,
                    eng_clk=2430),
    "gfx1102": dict(base="gfx1100", file="gfx1102_rx7600.json", name="AMD Radeon RX 7600", device_id=0x7480,
                    family_id=145, version=110002, se=2, cu=32, l2=2048, mem=8 << 30, bus=128, mem_clk=1125,
                    eng_clk=2655),
    "gfx1103": dict(base="gfx1100", file="gfx1103_780m.json", name="AMD Radeon 780M Graphics", device_id=0x15BF,
                    family_id=148, version=110003, se=1, cu=12, l2=2048, mem=2 << 30, bus=128, mem_clk=0,
                    eng_clk=2700),
    "gfx1200": dict(base="gfx1201", file="gfx1200_rx9060xt.json", name="AMD Radeon RX 9060 XT", device_id=0x7590,
                    family_id=152, version=120000, se=2, cu=32, l2=4096, mem=16 << 30, bus=128, mem_clk=1250,
                    eng_clk=3130),
}
BASES = {"gfx1100": "gfx1100_w7900.json", "gfx1201": "gfx1201_r9700.json"}


def derive(base, p, gpu_id):
    cfg = copy.deepcopy(base)
    dev = cfg["vm"]["gpu"]["device"]
    cu_per_se = p["cu"] // p["se"]
    dev.update(gpu_id=gpu_id, gfx_target_version=p["version"], device_id=p["device_id"], family_id=p["family_id"],
               unique_id=0, marketing_name=p["name"], location_id=0, simd_count=2 * p["cu"],
               # The base configs give num_shader_engines = 2 x SEs, 2 arrays per engine, and CUs per array such
               # that engines x arrays x CUs = SIMDs; the same rule here.
               num_shader_engines=2 * p["se"], num_shader_arrays_per_engine=2, num_cu_per_sh=p["cu"] // (2 * p["se"]),
               local_mem_size=p["mem"], mem_width=p["bus"], mem_clk_max=p["mem_clk"], l2_size_kb=p["l2"],
               max_engine_clk_fcompute=p["eng_clk"])
    xcd = cfg["topology"]["root"]["children"][1]
    se = xcd["children"][2]
    assert se["name"].startswith("se[") and se["children"][0]["name"].startswith("cu[")
    se["name"] = f"se[0:{p['se']}]"
    se["children"][0]["name"] = f"cu[0:{cu_per_se}]"
    for link in cfg["topology"]["links"]:
        link["pattern"] = link["pattern"].replace("j*16+k", f"j*{cu_per_se}+k")
        for r in link["for_ranges"]:
            if r["var_name"] == "j":
                r["end"] = p["se"]
            if r["var_name"] == "k":
                r["end"] = cu_per_se
    return cfg


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, out = sys.argv[1], sys.argv[2]
    bases = {k: json.load(open(f"{src}/configs/{v}")) for k, v in BASES.items()}
    for i, (target, p) in enumerate(sorted(PRODUCTS.items())):
        cfg = derive(bases[p["base"]], p, 9001 + i)
        with open(f"{out}/{p['file']}", "w") as f:
            json.dump(cfg, f, indent=2)
            f.write("\n")
        print(f"{target}: {p['file']} from {BASES[p['base']]}: {p['se']} SE x {p['cu'] // p['se']} CU")


if __name__ == "__main__":
    main()
