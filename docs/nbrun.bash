# bash completion for nbrun (installed as share/bash-completion/completions/nbrun).
# Subcommands first; then the options of the subcommand typed, files and folders where they
# are asked for, and the values an option takes.

_nbrun_options() {
	case "$1" in
	run) echo "--peer --out --force --dry-run --check --push --filter --set --label --secret-file --queue-timeout --version" ;;
	resume) echo "--peer --secret-file --queue-timeout" ;;
	serve) echo "--bind --port --data-ports --once --stdio --secret-file --secret-stdin --allow --max-duration --max-streams --max-message --max-rate --idle-timeout --max-queue" ;;
	validate) echo "--filter --set" ;;
	report) echo "" ;;
	compare) echo "--threshold --metric --out --format --junit --summary --allow-missing --fail-on-inconclusive --expect-diff --names --neutral" ;;
	env) echo "--peer --secret-file --queue-timeout --json" ;;
	export) echo "--format --out --better" ;;
	esac
}

_nbrun() {
	local cur prev sub i
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	sub=run
	for ((i = 1; i < COMP_CWORD; i++)); do
		case "${COMP_WORDS[i]}" in
		run | resume | serve | validate | report | compare | env | export | help)
			sub=${COMP_WORDS[i]}
			break ;;
		esac
	done
	case "$prev" in
	--format)
		if [[ $sub == export ]]; then
			mapfile -t COMPREPLY < <(compgen -W "prometheus github-benchmark jsonl csv" -- "$cur")
		else
			mapfile -t COMPREPLY < <(compgen -W "md csv json" -- "$cur")
		fi
		return ;;
	--metric)
		mapfile -t COMPREPLY < <(compgen -W "all rx_bps rx_pps trans_per_s lat_p50_us lat_p99_us loss_pct" -- "$cur")
		return ;;
	--better) mapfile -t COMPREPLY < <(compgen -W "bigger smaller" -- "$cur"); return ;;
	--out | -o | --json | --junit | --summary | --secret-file) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return ;;
	--peer | --bind | --port | --data-ports | --max-duration | --idle-timeout | --filter | \
		--set | --label | --threshold | --expect-diff | --names | --allow | --max-streams | \
		--max-message | --max-rate | --max-queue | --queue-timeout) return ;;
	esac
	if [[ $sub == help ]]; then
		mapfile -t COMPREPLY < <(compgen -W "run resume serve validate report compare env export" -- "$cur")
		return
	fi
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_nbrun_options "$sub") --quiet --verbose --help" -- "$cur")
		return
	fi
	case "$sub" in
	run)
		if ((COMP_CWORD == 1)); then
			mapfile -t COMPREPLY < <(compgen -W "resume serve validate report compare env export help" -- "$cur")
		fi
		mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -f -X '!*.y*ml' -- "$cur"; compgen -d -- "$cur")
		;;
	validate) mapfile -t COMPREPLY < <(compgen -f -X '!*.y*ml' -- "$cur"; compgen -d -- "$cur") ;;
	resume | report | compare | export) mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;
	esac
}
complete -o filenames -F _nbrun nbrun
