#!/usr/bin/env python3
"""Validates the outputs of a refcheck run against reports/*.schema.json with python3-jsonschema.

    tests/schemas/validate_run.py SCHEMA_DIR RUN_DIR
    tests/schemas/validate_run.py SCHEMA_DIR --run REFCHECK DATA_DIR CASE... (runs refcheck first)

Every schema is registered under its absolute $id (https://refcheck.invalid/schemas/...), so the
run index's $refs into case-report.schema.json resolve through the library's standard resolver,
with no network access: refcheck.invalid is a reserved name that never resolves. run.json is
checked against run-index.schema.json and each case report it names against case-report.schema.json.
Exit 0 valid, 1 invalid, 77 (CTest's SKIP_RETURN_CODE) when python3-jsonschema is missing.
"""
import json
import os
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    print("SKIPPED: python3-jsonschema is not installed (scripts/setup.sh installs it)")
    sys.exit(77)


def unique_keys(name, pairs):
    """An object's members, refusing a key given twice: JSON parsers keep the last, so a second
    definition silently replaced the first (case-report's strict "bisect" by a bare object)."""
    seen = {}
    for key, value in pairs:
        if key in seen:
            sys.exit(f"{name}: the key {key!r} appears twice in one object")
        seen[key] = value
    return seen


def load_schemas(schema_dir):
    schemas = {}
    for name in sorted(os.listdir(schema_dir)):
        if name.endswith(".schema.json"):
            with open(os.path.join(schema_dir, name), encoding="utf-8") as f:
                schema = json.load(f, object_pairs_hook=lambda pairs: unique_keys(name, pairs))
            uri = schema.get("$id", "")
            if not uri.startswith("https://refcheck.invalid/schemas/") or not uri.endswith("/" + name):
                sys.exit(f"{name}: $id {uri!r} is not https://refcheck.invalid/schemas/{name}")
            jsonschema.Draft202012Validator.check_schema(schema)
            schemas[name] = schema
    return schemas


def validator_for(schemas, name):
    schema = schemas[name]
    cls = jsonschema.Draft202012Validator
    try:  # jsonschema >= 4.18: the referencing library's registry
        from referencing import Registry, Resource

        registry = Registry().with_resources(
            (s["$id"], Resource.from_contents(s)) for s in schemas.values())
        return cls(schema, registry=registry)
    except ImportError:  # Debian 12's jsonschema 4.10: RefResolver with a store of the $ids
        resolver = jsonschema.RefResolver.from_schema(
            schema, store={s["$id"]: s for s in schemas.values()})
        return cls(schema, resolver=resolver)


def validate(schemas, run_dir):
    failures = 0
    checked = 0

    def check(name, file):
        nonlocal failures, checked
        with open(file, encoding="utf-8") as f:
            doc = json.load(f)
        errors = sorted(validator_for(schemas, name).iter_errors(doc), key=lambda e: list(e.path))
        checked += 1
        for e in errors[:20]:
            failures += 1
            path = "/".join(str(p) for p in e.absolute_path)
            print(f"{file}: /{path}: {e.message}")

    index_file = os.path.join(run_dir, "run.json")
    check("run-index.schema.json", index_file)
    with open(index_file, encoding="utf-8") as f:
        index = json.load(f)
    for row in index["cases"]:
        check("case-report.schema.json", os.path.join(run_dir, row["report"]))
    print(f"{checked} files of {run_dir} checked against {len(schemas)} schemas: "
          f"{'valid' if failures == 0 else str(failures) + ' error(s)'}")
    return failures == 0


def undescribed_are_refused(schemas, run_dir):
    """Every object of a report the schemas describe is closed: a property added below the top level
    (a run's counts, a case's counts, hooks, inputs, a file or buffer entry, a row's basis) makes the
    report invalid. They were open: such a report passed, though the README says it is invalid."""
    with open(os.path.join(run_dir, "run.json"), encoding="utf-8") as f:
        index = json.load(f)
    report = None  # a case report with file and buffer entries (the loader's)
    for row in index["cases"]:
        with open(os.path.join(run_dir, row["report"]), encoding="utf-8") as f:
            candidate = json.load(f)
        if candidate.get("files") and candidate.get("buffers"):
            report = candidate
    if report is None:
        sys.exit("no case report of the run has file and buffer entries to seed")
    seeded = [("run-index.schema.json", index, ["totals"]), ("run-index.schema.json", index, ["totals", "counts"]),
              ("run-index.schema.json", index, ["cases", 0, "basis"]),
              ("case-report.schema.json", report, ["counts"]), ("case-report.schema.json", report, ["hooks"]),
              ("case-report.schema.json", report, ["inputs"]), ("case-report.schema.json", report, ["files", 0]),
              ("case-report.schema.json", report, ["buffers", 0])]
    ok = True
    for name, doc, path in seeded:
        edited = json.loads(json.dumps(doc))
        node = edited
        for k in path:
            node = node[k]
        node["bogus_property"] = 1
        if not list(validator_for(schemas, name).iter_errors(edited)):
            print(f"{name}: /{'/'.join(map(str, path))}/bogus_property was not refused")
            ok = False
    print(f"{len(seeded)} undescribed properties {'all refused' if ok else 'NOT all refused'}")
    return ok


def main(argv):
    if len(argv) >= 3 and argv[2] == "--run":
        schema_dir, refcheck, data, cases = argv[1], argv[3], argv[4], argv[5:]
        schemas = load_schemas(schema_dir)
        ok = True
        with tempfile.TemporaryDirectory() as tmp:
            for label, extra in (("clean", []), ("seeded", ["--inject-reimpl-light-swap"])):
                out = os.path.join(tmp, label)
                r = subprocess.run([refcheck, "run", *cases, "--data", data, "--out", out, "--jobs", "1",
                                    *extra], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                if r.returncode not in (0, 1):
                    print(r.stdout)
                    sys.exit(f"refcheck run exited {r.returncode}")
                ok = validate(schemas, out) and ok
            ok = undescribed_are_refused(schemas, os.path.join(tmp, "clean")) and ok
        return 0 if ok else 1
    if len(argv) != 3:
        print(__doc__)
        return 2
    return 0 if validate(load_schemas(argv[1]), argv[2]) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
