#!/bin/sh
# unit suite: the command line as a user types it. Every subcommand's options as they are today,
# with their exit codes and their exact one-line messages; --help, --version, --dry-run,
# validate, report, compare, env. Nothing here reaches a peer: a bad --peer port stops before
# any connection, and `serve` is only started on an address this host does not have.
# Issue 15's CLI items are here too: a bad port is exit 2 and leaves nothing behind, an option
# of another subcommand is exit 2 with this subcommand's usage, each subcommand has its help.
# Speaks TAP. Environment: NBRUN (the binary), NB_SRCDIR (the source tree), NB_VERSION_LINE
# (what --version prints); meson sets them.
set -u
NBRUN=$(realpath "${NBRUN:-build/nbrun}")
SRC=$(realpath "${NB_SRCDIR:-$(dirname "$0")/../..}")
N=0
FAILED=0
. "$SRC/tests/lib/tap.sh"
TMP=$(mktemp -d /tmp/nbt_cli.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM
export NBRUN_GNUPLOT=none
mkdir "$TMP/cwd" && cd "$TMP/cwd" || exit 1   # stays empty: no command writes where it runs

# nb ARGS...: run nbrun (60 s at most: a hang fails, it does not block); RC, $TMP/out and
# $TMP/err keep what it did.
nb() { timeout 60 "$NBRUN" "$@" </dev/null >"$TMP/out" 2>"$TMP/err"; RC=$?; }

# starts FILE PREFIX: the first line of FILE starts with PREFIX. has FILE LINE: FILE holds LINE.
starts() { case "$(head -n 1 "$1")" in "$2"*) return 0 ;; esac; return 1; }
has() { grep -qxF -e "$2" "$1"; }
# verdict DESCRIPTION: ok when the command just before it succeeded, else not ok with stderr.
verdict() { if [ $? -eq 0 ]; then ok "$1"; else nok "$1 (exit $RC)" "$TMP/err"; fi; }

# got DESCRIPTION WANT-RC WANT-OUT-FILE WANT-ERR-FILE: the last nb exited WANT-RC and printed
# exactly those files' text on stdout and stderr.
got() {
	if [ "$RC" -eq "$2" ] && cmp -s "$3" "$TMP/out" && cmp -s "$4" "$TMP/err"; then
		ok "$1"
		return
	fi
	nok "$1"
	echo "# want exit $2, got $RC"
	diff "$3" "$TMP/out" | sed 's/^/# stdout: /'
	diff "$4" "$TMP/err" | sed 's/^/# stderr: /'
}

# said DESCRIPTION WANT-RC LINE: exit WANT-RC, nothing on stdout, LINE alone on stderr.
said() {
	printf '%s\n' "$3" >"$TMP/want.err"
	got "$1" "$2" /dev/null "$TMP/want.err"
}

# printed DESCRIPTION WANT-RC TEXT: exit WANT-RC, TEXT on stdout, nothing on stderr.
printed() {
	printf '%s\n' "$3" >"$TMP/want.out"
	got "$1" "$2" "$TMP/want.out" /dev/null
}

CFG=$TMP/two.yaml
cat >"$CFG" <<'YAML'
name: two
defaults: {duration: 1s, warmup: 0s, repetitions: 1}
tests:
  - {name: a, engine: stream, streams: [1, 2]}
  - {name: b, engine: rr}
YAML

# --- usage errors: exit 2 and "nbrun: MESSAGE (try 'nbrun [SUBCOMMAND] --help')", nothing else
# MESSAGE|ARGUMENTS (split on spaces)
while IFS='|' read -r msg args; do
	set -f
	set -- $args
	set +f
	case "${1:-}" in
	serve | validate | report | compare | env | resume) hint="nbrun $1 --help" ;;
	*) hint="nbrun --help" ;;
	esac
	nb "$@"
	said "nbrun $args: exit 2, $msg" 2 "nbrun: $msg (try '$hint')"
done <<'EOF'
missing CONFIG.yaml|
missing CONFIG.yaml|--dry-run
missing CONFIG.yaml|validate
expected one CONFIG.yaml, got 2 arguments|a.yaml b.yaml
expected one CONFIG.yaml, got 2 arguments|validate a.yaml b.yaml
report: expected one results folder|report
report: expected one results folder|report a b
compare: expected BASE and at least one NEW results folder|compare
compare: expected BASE and at least one NEW results folder|compare a
unexpected argument 'x'|serve x
env: CONFIG.yaml only names the hosts --peer NAME may name: give one, with --peer|env x
env: CONFIG.yaml only names the hosts --peer NAME may name: give one, with --peer|env a.yaml b.yaml --peer vm1
unknown option '--bogus'|a.yaml --bogus
unknown option '--bogus'|serve --bogus
unknown option '-x'|-x a.yaml
option '--peer' needs an argument|a.yaml --peer
option '--out' needs an argument|a.yaml --out
option '--filter' needs an argument|a.yaml --filter
option '--set' needs an argument|a.yaml --set
option '--port' needs an argument|serve --port
option '--json' needs an argument|env --json
option '--threshold' needs an argument|compare a b --threshold
option '--junit' needs an argument|compare a b --junit
--set 'duration': expected KEY=VALUE|a.yaml --set duration
--set '=5s': expected KEY=VALUE|a.yaml --set =5s
--port '65536': expected a port 1..65535 (0: any free one)|serve --port 65536
--port 'abc': expected a port 1..65535 (0: any free one)|serve --port abc
--port '-1': expected a port 1..65535 (0: any free one)|serve --port -1
--data-ports '7699-7600': expected LOW-HIGH, e.g. 7600-7699|serve --data-ports 7699-7600
--data-ports '7600': expected LOW-HIGH, e.g. 7600-7699|serve --data-ports 7600
--max-duration '0': expected seconds, 1..604800|serve --max-duration 0
--idle-timeout '86401': expected seconds, 1..86400|serve --idle-timeout 86401
--max-queue '33': expected clients, 0..32|serve --max-queue 33
--queue-timeout '2d': expected a duration up to 24h, e.g. 30s or 10m (0: do not wait)|a.yaml --queue-timeout 2d
--queue-timeout '25h': expected a duration up to 24h, e.g. 30s or 10m (0: do not wait)|env --queue-timeout 25h
--threshold 'x': expected a percentage from 0% to 100%, e.g. 5%|compare a b --threshold x
--threshold '10': a bare number is ambiguous; write it as a percentage, e.g. 10%|compare a b --threshold 10
--threshold '150%': above 100 % no change can be a regression (expected 0% to 100%)|compare a b --threshold 150%
--format 'xml': expected md, csv or json|compare a b --format xml
EOF

# --- help and version ----------------------------------------------------------------------
nb --help
cp "$TMP/out" "$TMP/help"
[ "$RC" -eq 0 ] && [ ! -s "$TMP/err" ] &&
	starts "$TMP/help" "usage: nbrun [OPTIONS] CONFIG.yaml        run a test matrix"
verdict "--help: exit 0, the usage on stdout"
missing=
for word in 'nbrun serve' 'nbrun validate' 'nbrun report' 'nbrun compare' 'nbrun env' --peer \
	--out --dry-run --filter --set --bind --port --data-ports --once --max-duration \
	--idle-timeout --max-queue --queue-timeout --threshold --metric --format --junit --summary --json --allow-missing \
	--fail-on-inconclusive \
	--expect-diff --names --neutral -q --quiet -v --verbose --version \
	-h --help; do
	grep -q -e "$word\b" "$TMP/help" || missing="$missing $word"
done
[ -z "$missing" ]
verdict "--help names every subcommand and every option${missing:+ (missing:$missing)}"
for h in -h help; do
	nb $h
	got "nbrun $h prints the same usage" 0 "$TMP/help" /dev/null
done
nb --version
if [ -n "${NB_VERSION_LINE:-}" ]; then
	printed "--version: exactly '$NB_VERSION_LINE'" 0 "$NB_VERSION_LINE"
else
	skip "--version" "NB_VERSION_LINE not set"
fi

# --- validate and --dry-run ----------------------------------------------------------------
nb validate "$CFG"
printed "validate: the case and run counts" 0 "ok: 3 cases, 3 runs"
nb validate "$CFG" --filter 'b/*'
printed "validate --filter: counts after the filter, singular" 0 "ok: 1 case, 1 run"
cat >"$TMP/wide.yaml" <<'YAML'
name: wide
tests:
  - { name: wide, engine: stream, streams: 64, direction: bidir, duration: 2s }
  - { name: long, engine: rr, duration: 1h }
  - { name: ok, engine: stream, streams: 32, direction: bidir, duration: 2s }
YAML
nb validate "$TMP/wide.yaml"
printf '%s\n' "ok: 3 cases, 3 runs" \
	"note: wide/tcp/s128K/p64/bidir: limit: 128 flows, above nbrun serve's --max-streams 64 (its default: start the agent with a higher one)" \
	"note: long/tcp/q32r128/f1: limit: the test lasts 3601.0 s, above nbrun serve's --max-duration 3600 s (its default: start the agent with a higher one)" >"$TMP/want.out"
got "validate: a note for each case above an agent's default limits, still exit 0" 0 "$TMP/want.out" /dev/null
nb validate "$TMP/none.yaml"
said "validate of a missing file: exit 2, names it" 2 \
	"nbrun: $TMP/none.yaml: no such file (expected a YAML config file)"

cat >"$TMP/want.out" <<'EOF'
case id                 engine   protocol  size       streams  rate            direction  repetitions
a/tcp/s128K/p1/forward  stream   tcp       128K             1  -               forward    1
a/tcp/s128K/p2/forward  stream   tcp       128K             2  -               forward    1
b/tcp/q32r128/f1        rr       tcp       32/128           1  -               -          1
3 cases, 3 runs, estimated 6s (warm-up + duration per run, +1 s overhead each)
EOF
nb "$CFG" --dry-run
got "--dry-run: the plan names every case, runs nothing" 0 "$TMP/want.out" /dev/null
nb "$CFG" --dry-run --filter 'b/*' --filter 'nothing'
printed "--filter: only the matching cases" 0 \
"case id           engine   protocol  size       streams  rate            direction  repetitions
b/tcp/q32r128/f1  rr       tcp       32/128           1  -               -          1
1 case, 1 run, estimated 2s (warm-up + duration per run, +1 s overhead each)"
nb "$CFG" --dry-run --filter 'nothing*'
said "--filter that matches nothing: exit 2, says how many ids there are" 2 "nbrun: $CFG: no case \
matches --filter 'nothing*' (expected a glob matching some of the 3 case ids; see --dry-run)"
nb "$CFG" --dry-run --set duration=5s
[ "$RC" -eq 0 ] && has "$TMP/out" "3 cases, 3 runs, estimated 18s (warm-up + duration per run, +1 s \
overhead each)"
verdict "--set duration=5s changes every case's estimate"
nb "$CFG" --dry-run --set bogus=5
said "--set with an unknown key: exit 2, names it" 2 \
	"nbrun: --set bogus: unknown key 'bogus' in defaults (expected a key listed in docs/config.md)"

# --- report and compare --------------------------------------------------------------------
cp -r "$SRC/tests/fixtures/results-basic" "$TMP/res"
nb report "$TMP/res"
[ "$RC" -eq 0 ] && [ ! -s "$TMP/out" ] && [ -s "$TMP/res/report.md" ] && [ "$(tail -n 1 "$TMP/err")" = \
	"report: 6 cases, 22 runs (1 failed), 0 incomplete rows skipped, 15 charts (0 rendered)" ]
verdict "report DIR: exit 0, report.md rebuilt, one summary line last"
mkdir "$TMP/empty"
nb report "$TMP/empty"
said "report of a folder without results: exit 2" 2 \
	"nbrun: report: $TMP/empty: no readable plan.csv or runs.csv"
F=$SRC/tests/fixtures/compare
nb compare "$F/base" "$F/same"
[ "$RC" -eq 0 ] && starts "$TMP/out" "# nbrun compare"
verdict "compare with no regression: exit 0, Markdown on stdout"
nb compare "$F/base" "$F/drop"
[ "$RC" -eq 1 ] &&
	has "$TMP/err" "nbrun: compare: regression: tcp-stream/tcp/s128K/p1/forward (drop): rx_bps -20.0 % (95 % CI -20.5 to -19.5 %)"
verdict "compare with a regression: exit 1, the case named on stderr"
nb compare "$F/base" "$F/drop" --format json --threshold 50%
[ "$RC" -eq 0 ] && starts "$TMP/out" "{"
verdict "compare --format json --threshold 50%: JSON, and -20 % is no regression"
nb compare "$F/base" "$F/drop" --format csv --metric lat_p99_us
[ "$RC" -eq 0 ] && starts "$TMP/out" "case_id,test,metric,unit,better,base,new," &&
	grep -q '^tcp-stream/tcp/s128K/p1/forward,tcp-stream,lat_p99_us,.*,no data,' "$TMP/out"
verdict "compare --format csv --metric lat_p99_us: CSV of that column (stream runs have none)"
nb compare "$F/base" "$F/mixed" --format csv --metric all --metric lat_p99_us
[ "$RC" -eq 1 ] && [ "$(grep -c ',lat_p99_us,' "$TMP/out")" -eq 5 ] &&
	grep -q '^latency/udp/r64/64,latency,lat_p50_us,.*,regression,' "$TMP/out" &&
	grep -q '^latency/udp/r64/64,latency,lat_p99_us,.*,regression,' "$TMP/out"
verdict "compare --metric all --metric lat_p99_us: a row per case and metric, both judged"
nb compare "$F/base" "$F/drop" --metric bogus
said "compare --metric that is no column: exit 2, with examples" 2 "nbrun: compare: --metric \
'bogus': not a metric column (e.g. rx_bps, trans_per_s, lat_p99_us, loss_pct) or all"
nb compare "$F/base" "$F/drop" --out "$TMP/cmp.md"
[ "$RC" -eq 1 ] && [ ! -s "$TMP/out" ] && starts "$TMP/cmp.md" "# nbrun compare" &&
	[ -s "$TMP/cmp-charts/compare.dat" ]
verdict "compare --out FILE: exit 1, the report in FILE, chart data in FILE-charts/, nothing on stdout"
nb compare "$F/base" "$TMP/none"
said "compare with a missing folder: exit 2" 2 "nbrun: compare: $TMP/none: No such file or directory"

# --- env -----------------------------------------------------------------------------------
nb env --json "$TMP/env.json"
[ "$RC" -eq 0 ] && starts "$TMP/out" host && grep -q '"peer": null' "$TMP/env.json"
verdict "env --json FILE: facts on stdout, and in FILE with no peer"
nb env --json "$TMP/no/env.json"
[ "$RC" -ne 0 ] &&
	[ "$(cat "$TMP/err")" = "nbrun: cannot write $TMP/no/env.json: No such file or directory" ]
verdict "env --json to a missing folder: fails, one line naming the file"

# --- a bad --peer port ---------------------------------------------------------------------
BADPORT="nbrun: peer '127.0.0.1:99999': bad port '99999'"
nb "$CFG" --peer 127.0.0.1:99999 --out "$TMP/badport"
[ "$RC" -eq 2 ] && [ "$(cat "$TMP/err")" = "$BADPORT" ] && [ ! -e "$TMP/badport" ]
verdict "--peer HOST:99999: exit 2, the port named in the only line, no results folder"
nb env --peer 127.0.0.1:99999
[ "$RC" -eq 2 ] && [ "$(cat "$TMP/err")" = "$BADPORT" ]
verdict "env --peer HOST:99999: exit 2, the port named in the only line"

# --- a typo of a host of hosts: (issue 27): bad input, not an unreachable peer -------------
# vmbb is no host of hosts: and resolves nowhere; it looks like vmb, so it is a typo of it.
cat >"$TMP/typo.yaml" <<'YAML'
name: typo
hosts:
  vmb: { address: 127.0.0.1, port: 1 }
tests:
  - { name: t, engine: stream, duration: 1s }
YAML
TYPO="nbrun: unknown host 'vmbb' (did you mean 'vmb'?)"
nb "$TMP/typo.yaml" --peer vmbb --out "$TMP/typo"
[ "$RC" -eq 2 ] && [ "$(cat "$TMP/err")" = "$TYPO" ] && [ ! -e "$TMP/typo" ]
verdict "--peer a typo of a host of hosts:: exit 2, the host it looks like, no results folder"
nb "$TMP/typo.yaml" --peer vmbb --check
[ "$RC" -eq 2 ] && [ "$(cat "$TMP/err")" = "$TYPO" ]
verdict "--check --peer a typo of a host of hosts:: exit 2, the same line"
nb env "$TMP/typo.yaml" --peer vmbb
[ "$RC" -eq 2 ] && [ "$(cat "$TMP/err")" = "$TYPO" ]
verdict "env CONFIG --peer a typo of a host of hosts:: exit 2, the same line"

# --- options of another subcommand: exit 2, the error, then this subcommand's usage ---------
# foreign DESCRIPTION SUBCOMMAND-USAGE-LINE MESSAGE ARGS...
foreign() {
	_what=$1 _usage=$2 _msg=$3
	shift 3
	nb "$@"
	[ "$RC" -eq 2 ] && [ ! -s "$TMP/out" ] && [ "$(head -n 1 "$TMP/err")" = "nbrun: $_msg" ] &&
		sed -n 3p "$TMP/err" | grep -q "^usage: $_usage" && ! grep -q "options of a run" "$TMP/err"
	verdict "$_what: exit 2, named, and the usage of $_usage"
}
foreign "run --port (a serve option)" "nbrun \[OPTIONS\] CONFIG.yaml" \
	"--port is not an option of nbrun run (only of nbrun serve)" "$CFG" --dry-run --port 17575
foreign "run --json (an env option)" "nbrun \[OPTIONS\] CONFIG.yaml" \
	"--json is not an option of nbrun run (only of nbrun env)" "$CFG" --dry-run --json "$TMP/x.json"
foreign "report --threshold (a compare option)" "nbrun report" \
	"--threshold is not an option of nbrun report (only of nbrun compare)" report "$TMP/res" \
	--threshold 5%
foreign "env --filter (a run option)" "nbrun env" \
	"--filter is not an option of nbrun env (only of nbrun run or validate)" env --filter 'a/*'
foreign "serve --threshold (a compare option)" "nbrun serve" \
	"--threshold is not an option of nbrun serve (only of nbrun compare)" serve --threshold 5% \
	--bind 192.0.2.1 --port 17999
foreign "resume --out (a run option)" "nbrun resume" \
	"--out is not an option of nbrun resume (only of nbrun run, compare or export)" resume "$TMP/res" \
	--out x
foreign "run --max-rate (a serve option)" "nbrun \\[OPTIONS\\] CONFIG.yaml" \
	"--max-rate is not an option of nbrun run (only of nbrun serve)" "$CFG" --dry-run --max-rate 1G
foreign "env --allow (a serve option)" "nbrun env" \
	"--allow is not an option of nbrun env (only of nbrun serve)" env --allow 10.0.0.0/8
for sub in run resume serve validate report compare env export; do
	nb $sub --help
	[ "$RC" -eq 0 ] && [ ! -s "$TMP/err" ] && { starts "$TMP/out" "usage: nbrun $sub" ||
		{ [ $sub = run ] && starts "$TMP/out" "usage: nbrun [OPTIONS] CONFIG.yaml"; }; } &&
		! grep -q "options of a run" "$TMP/out"
	verdict "nbrun $sub --help: exit 0, its own usage on stdout"
	cp "$TMP/out" "$TMP/subhelp"
	nb help $sub
	got "nbrun help $sub prints the same" 0 "$TMP/subhelp" /dev/null
done
# --- a results folder belongs to one batch: a used --out is refused, nothing touched --------
snap() { (cd "$1" && find . -type f -exec sha256sum {} + | sort; find . | sort); }
snap "$TMP/res" >"$TMP/before"
nb "$CFG" --out "$TMP/res" --peer 127.0.0.1:1
[ "$RC" -eq 2 ] && [ ! -s "$TMP/out" ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] &&
	grep -q "^nbrun: --out $TMP/res is not empty (.*): a results folder holds one batch; choose a new folder, or add --force to replace its results$" "$TMP/err"
verdict "a used --out: exit 2, one line, before any peer is contacted"
snap "$TMP/res" >"$TMP/after"
cmp -s "$TMP/before" "$TMP/after"
verdict "a used --out: every file and folder in it unchanged"
nb "$CFG" --out "$TMP/res" --force --peer 127.0.0.1:1
[ "$RC" -eq 3 ] && cmp -s "$TMP/before" "$(snap "$TMP/res" >"$TMP/after2"; echo "$TMP/after2")"
verdict "--force with a peer that cannot be reached: exit 3, the folder still untouched"

# --- every config error at once ------------------------------------------------------------
printf 'name: bad\ndefaults:\n  duration: 10x\ntests:\n  - {name: a, engine: stream, parallel: 4}\n  - {name: b, engine: rr, window: 4mb}\n' >"$TMP/bad.yaml"
nb validate "$TMP/bad.yaml"
[ "$RC" -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 3 ] &&
	[ "$(grep -c "^nbrun: $TMP/bad.yaml:[0-9]*:[0-9]*: " "$TMP/err")" -eq 3 ] &&
	grep -q "'parallel' (iperf3's -P/--parallel is 'streams: N' in nbrun)" "$TMP/err"
verdict "a config with three errors: exit 2, three located lines"

# --- the man page and the bash completion ---------------------------------------------------
MAN=$SRC/docs/nbrun.1
[ -z "$(groff -man -Tutf8 -ww -z "$MAN" 2>&1)" ]
verdict "nbrun.1 renders without a groff warning"
missing=
for sub in run resume serve validate report compare env export; do
	for o in $("$NBRUN" $sub --help | grep -o -- '--[a-z-]*' | sort -u); do
		grep -qF -- "$(printf '%s' "$o" | sed 's/-/\\-/g')" "$MAN" || missing="$missing $sub:$o"
	done
done
[ -z "$missing" ]
verdict "nbrun.1 documents every option of every subcommand${missing:+ (missing:$missing)}"
# words FILE: its text as one line of single-spaced words (roff escapes and line breaks gone)
words() { sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' "$1" | tr -s ' \n' '  '; }
nb compare --help
allow=$(sed -n '/^  --allow-missing /,/^  --[a-z]/p' "$TMP/out" | sed '$d' | sed 's/^  --allow-missing *//')
printf '%s\n' "$allow" >"$TMP/allow.txt"
[ -n "$allow" ] && words "$MAN" | grep -qiF -- "$(words "$TMP/allow.txt" | sed 's/^ *//; s/ *$//')"
verdict "compare --help and nbrun.1 say the same of --allow-missing"
COMP=$SRC/docs/nbrun.bash
# complete WORDS...: what the completion offers for the last word
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _nbrun; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$COMP" "$@"
}
bash -n "$COMP" && [ "$(complete_words nbrun re | sort | tr '\n' ' ')" = "report resume " ]
verdict "bash completion: the subcommands"
got_serve=$(complete_words nbrun serve -- | tr '\n' ' ')
case "$got_serve" in *--port*) ! echo "$got_serve" | grep -q -- --threshold ;; *) false ;; esac
verdict "bash completion: serve's options, not compare's (${got_serve% })"
case "$got_serve" in *--secret-file*--allow*--max-rate*) true ;; *) false ;; esac
verdict "bash completion: serve's --secret-file, --allow and limits"
[ "$(complete_words nbrun compare a b --format j)" = json ]
verdict "bash completion: --format's values"
[ "$(complete_words nbrun compare a b --metric a)" = all ] &&
	[ "$(complete_words nbrun export --b | tr '\n' ' ')" = "--better " ]
verdict "bash completion: --metric's values; export's options after export"

left=$(ls -A "$TMP/cwd")
[ -z "$left" ]
verdict "no command wrote into the folder it ran in${left:+ (found: $left)}"

echo "1..$N"
exit $FAILED
