"""Validates summaries against schemas/vmem-repro-summary-2.schema.json with a real JSON Schema validator (Debian's
python3-jsonschema). Usage: validate_summary.py SCHEMA FILE...; exit 0 when every FILE is valid, else 1 with one
line per invalid FILE naming it and the first error's place; 2 when the validator is missing or the schema is not
one."""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("validate_summary: no jsonschema module (apt-get install python3-jsonschema; run with /usr/bin/python3)")
    sys.exit(2)

schema = json.load(open(sys.argv[1], encoding="utf-8"))
try:
    jsonschema.Draft202012Validator.check_schema(schema)
except jsonschema.exceptions.SchemaError as e:
    print(f"validate_summary: {sys.argv[1]} is not a JSON Schema: {e.message}")
    sys.exit(2)
validator = jsonschema.Draft202012Validator(schema)
bad = 0
for path in sys.argv[2:]:
    try:
        doc = json.load(open(path, encoding="utf-8"))
    except ValueError as e:
        print(f"{path}: not JSON: {e}")
        bad += 1
        continue
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        where = "/".join(str(p) for p in errors[0].absolute_path) or "(top)"
        print(f"{path}: {where}: {errors[0].message}")
        bad += 1
sys.exit(1 if bad else 0)
