#!/usr/bin/env python3
"""Makes Services/TaxForm/Data/institutions.json from NCES IPEDS directory information (HD<year>.csv,
https://nces.ed.gov/ipeds/datacenter/DataFiles.aspx, "Directory information"; a US government work in
the public domain, 17 U.S.C. 105): every active, degree-granting institution in a US state, DC or an
outlying area, with its address and main telephone number (E.164; an extension is dropped).

    deploy/data/tax-form-institutions.py hd2022.csv 2022-23 > Services/TaxForm/Data/institutions.json
"""
import csv, io, json, re, sys

path, collection = sys.argv[1], sys.argv[2]
states = {s["code"] for s in json.load(open("Services/TaxForm/Data/states.json"))["states"]}
rows = csv.DictReader(io.StringIO(open(path, "rb").read().decode("cp1252")))

def phone(text):
    digits = re.sub(r"\D", "", text)
    if len(digits) == 11 and digits[0] == "1":
        digits = digits[1:]
    digits = digits[:10]  # longer ones carry an extension
    return "+1" + digits if re.fullmatch(r"[2-9]\d{2}[2-9]\d{6}", digits) else None

institutions = []
for row in rows:
    row = {k: v.strip() for k, v in row.items()}
    if row["DEGGRANT"] != "1" or row["CYACTIVE"] != "1" or row["SECTOR"] == "0" or row["STABBR"] not in states:
        continue
    if not row["ADDR"] or not re.fullmatch(r"\d{5}(-\d{4})?", row["ZIP"]):
        continue
    entry = {"id": row["UNITID"], "name": row["INSTNM"], "line1": row["ADDR"], "city": row["CITY"],
             "state": row["STABBR"], "postalCode": row["ZIP"]}
    if number := phone(row["GENTELE"]):
        entry["phone"] = number
    aliases = [a.strip() for a in re.split(r"\||  +|,", row["IALIAS"]) if len(a.strip()) >= 2]
    if aliases:
        entry["aliases"] = aliases
    institutions.append(entry)

institutions.sort(key=lambda e: (e["name"].lower(), e["id"]))
out = io.StringIO()
out.write('{\n "source": "NCES IPEDS %s directory information (HD%s): active, degree-granting institutions; public domain",\n' % (collection, path.rsplit("hd", 1)[-1][:4]))
out.write(' "institutions": [\n')
out.write(",\n".join("  " + json.dumps(e, ensure_ascii=False, separators=(",", ":")) for e in institutions))
out.write("\n ]\n}\n")
sys.stdout.write(out.getvalue())
print(f"{len(institutions)} institutions", file=sys.stderr)
