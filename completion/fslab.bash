# bash completion for fslab(1)                                 -*- shell-script -*-
#
# Installed as share/bash-completion/completions/fslab and loaded on demand
# by bash-completion.  Completes commands, each command's options, and the
# values fslab knows: cache modes, sweep presets, test and filesystem names
# (comma lists too), report formats and plots, state files, directories.
# The names below are fslab's vocabulary (lib/names.c, cmd/*.c); the
# package test checks the command list and cache modes against fslab itself,
# tests/unit/test_opts each command's options against its options table
# (the hidden `fslab CMD --list-options`), as it does for docs/fslab.1, and
# tests/unit/test_settings the words offered after each of fslab run's
# setting options against its row of lib/settings.c.

_fslab_commands="setup status run report teardown reproduce spec import export"
_fslab_tests="iozone queued files write rewrite read reread random_read random_write backward_read record_rewrite stride_read fwrite frewrite fread freread queued_write queued_read queued_random_write queued_random_read files_create files_stat files_read files_unlink"
_fslab_filesystems="ext4 ext2 xfs fat32 btrfs"
_fslab_cache_modes="warm fsync direct cold"

# _fslab_comma_list WORDS: complete the last item of a comma-separated list
# of WORDS, keeping the items already typed.
_fslab_comma_list()
{
	local prefix="" last=$cur
	if [[ $cur == *,* ]]; then
		prefix=${cur%,*},
		last=${cur##*,}
	fi
	COMPREPLY=($(compgen -P "$prefix" -W "$1" -- "$last"))
	compopt -o nospace 2>/dev/null
}

# State files: *.json anywhere the user types, and the default one.
_fslab_state_files()
{
	_filedir json
	if [[ -z $cur || /var/lib/fslab/ == "$cur"* ]] && [[ -e /var/lib/fslab/state.json ]]; then
		COMPREPLY+=(/var/lib/fslab/state.json)
	fi
}

_fslab_options_of()
{
	case $1 in
	setup) echo "--device --image --size --spec --mount-root --state --wipe --yes --dry-run --no-discard
		--precondition --purge --help" ;;
	status) echo "--state --json --help" ;;
	run) echo "--state --dir --out --sweep --cdm-size --cdm-time --tests --iodepth --jobs --file-sync --file-sizes --record-sizes --small-records
		--cache --trials --seed --stop --until-ci --max-trials --io --sync --latency --pass-gap --no-device-probe
		--probe-size --steady-state --steady-state-round --allow-concurrent --resume --label
		--quiet --dry-run --help" ;;
	report) echo "--out --format --plots --tests --record --equivalence --fail-on-regression
		--compare-different --claims --help" ;;
	teardown) echo "--state --yes --keep-image --discard --help" ;;
	reproduce) echo "--device --image --size --spec --yes --wipe --out --max-file --honest --until-ci
		--max-trials --keep --state --mount-root --precondition --quiet --dry-run --help" ;;
	spec) echo "--print --check --help" ;;
	import) echo "--fs --out --cache --force --help" ;;
	export) echo "--out --force --no-excel --help" ;;
	esac
}

_fslab()
{
	local cur prev words cword
	if declare -F _init_completion >/dev/null; then
		_init_completion -s || return
	else
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD - 1]}
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
	fi

	local i cmd=""
	for ((i = 1; i < cword; i++)); do
		if [[ ${words[i]} != -* ]]; then
			cmd=${words[i]}
			break
		fi
	done
	if [[ -z $cmd ]]; then
		COMPREPLY=($(compgen -W "$_fslab_commands --help --version -V" -- "$cur"))
		return
	fi

	case $prev in
	--device)
		COMPREPLY=($(compgen -f -- "${cur:-/dev/}"))
		return ;;
	--image | --spec | --check)
		_filedir
		return ;;
	--sweep)
		COMPREPLY=($(compgen -W "lab quick seed cdm cdm-nvme" -- "$cur"))
		_filedir ini
		return ;;
	--state)
		_fslab_state_files
		return ;;
	--mount-root | --resume)
		_filedir -d
		return ;;
	--out | -o)
		if [[ $cmd == export ]]; then _filedir; else _filedir -d; fi
		return ;;
	--io)
		COMPREPLY=($(compgen -W "seek positional" -- "$cur"))
		return ;;
	--precondition)
		COMPREPLY=($(compgen -W "auto on off" -- "$cur"))
		return ;;
	--purge)
		COMPREPLY=($(compgen -W "trim none secure-erase" -- "$cur"))
		return ;;
	--sync)
		COMPREPLY=($(compgen -W "fs global" -- "$cur"))
		return ;;
	--file-sync)
		COMPREPLY=($(compgen -W "none fsync fdatasync" -- "$cur"))
		return ;;
	--steady-state)
		COMPREPLY=($(compgen -W "auto on off" -- "$cur"))
		return ;;
	--cache)
		COMPREPLY=($(compgen -W "$_fslab_cache_modes" -- "$cur"))
		return ;;
	--tests | -t)
		_fslab_comma_list "all $_fslab_tests"
		return ;;
	--fs)
		COMPREPLY=($(compgen -W "$_fslab_filesystems" -- "$cur"))
		return ;;
	--dir)
		if [[ $cur == *=* ]]; then
			cur=${cur#*=}
			_filedir -d
		else
			COMPREPLY=($(compgen -S = -W "$_fslab_filesystems" -- "$cur"))
			compopt -o nospace 2>/dev/null
		fi
		return ;;
	--small-records)
		COMPREPLY=($(compgen -W "skip keep" -- "$cur"))
		return ;;
	--stop)
		COMPREPLY=($(compgen -W "decided ci fixed" -- "$cur"))
		return ;;
	--format | -f)
		COMPREPLY=($(compgen -W "all text html json" -- "$cur"))
		return ;;
	--plots | -p)
		_fslab_comma_list "all none surface heatmap compare"
		return ;;
	--size | --file-sizes | --record-sizes | --trials | --seed | --until-ci | \
	--max-trials | --probe-size | --cdm-size | --cdm-time | --iodepth | --jobs | --pass-gap | --steady-state-round | --max-file | --record | -r | --label)
		return ;;
	esac

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_fslab_options_of "$cmd")" -- "$cur"))
		return
	fi
	case $cmd in
	report)
		_filedir -d ;;
	import)
		if [[ ${words[cword - 1]} == import ]]; then
			COMPREPLY=($(compgen -W "iozone" -- "$cur"))
		else
			_filedir
		fi ;;
	export)
		if [[ ${words[cword - 1]} == export ]]; then
			COMPREPLY=($(compgen -W "iozone" -- "$cur"))
		else
			_filedir csv
		fi ;;
	esac
} &&
	complete -F _fslab fslab

# ex: filetype=sh
