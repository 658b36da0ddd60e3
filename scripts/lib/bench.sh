# Shared by scripts/bench-*: run one nbrun case for real (`nbrun CONFIG`, embedded agent on
# loopback) and read a column of its runs.csv row. Sourced by bash scripts.

# nb_case OUTDIR SECONDS 'YAML flow-mapping body of the test': run it; false if nbrun failed.
nb_case() {
	local out=$1 secs=$2 body=$3
	mkdir -p "$out"
	cat >"$out.yaml" <<YAML
name: bench
defaults: {duration: ${secs}s, warmup: 1s, omit: 0s, interval: 1s, repetitions: 1}
tests:
  - {name: b, $body}
YAML
	rm -rf "$out"
	timeout $((secs + 30)) "${NBRUN:-build/nbrun}" -q "$out.yaml" --out "$out" >/dev/null 2>&1
}

# nb_field OUTDIR COLUMN...: the columns of the first successful run, space separated.
nb_field() {
	python3 - "$1/runs.csv" "${@:2}" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["status"] == "ok"]
print(" ".join(rows[0][c] or "nan" for c in sys.argv[2:]) if rows else "")
PY
}
