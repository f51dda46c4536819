# The runner of case files: `ct_cases FILE [SECTION]` (sourced with
# lib_checks.sh).
# A case file (tests/e2e/cases/NAME.case) holds the "run this, expect these
# lines" part of a script: runs of the target and the lines their traces,
# outputs and exit codes must hold. The script keeps the orchestration
# (building the target, services, attach, signals, timing) and calls
# `ct_cases "$here/cases/NAME.case"` after its set-up; each check prints
# "ok   ..." or "FAIL ..." and counts in ct_end as any other.
#
# The format, one directive a line:
#   # ...                      a comment (blank lines are skipped too)
#   == TEXT                    prints "== TEXT" (a section's heading)
#   engine il|elt|any          the lines up to the next `engine` line apply
#                              only with that engine (CLRTRACE_ENGINE)
#   in FILE                    the file the checks below read ($work/FILE,
#                              or FILE when it is an absolute path)
#   section NAME               the lines up to the next `section` line are
#                              NAME's: `ct_cases FILE NAME` runs those alone
#                              (a script's part, e.g. run_hard.sh's HARD_ONLY);
#                              the lines before the first `section` run with
#                              every part
#   needs COMMAND...           the lines up to the next `needs` (or
#                              `section`) line run only when every COMMAND is
#                              installed; else one "skip" line names the
#                              missing. `needs` alone ends that.
# Runs (their arguments are shell words: quotes, $work, $app, $ct, $lib and
# the script's variables and functions, as in bash):
#   run NAME [VAR=VALUE...] [-- ARGS...]   the traced run of `dotnet $app
#                              ARGS` (run_traced): $work/NAME.out, .err, .rc
#                              and the trace NAME.txt, which `in` becomes
#   plain NAME [ARGS...]       the untraced run (run_plain)
#   $ NAME COMMAND...          any command (ct_run): $work/NAME.out, .err, .rc
#   sh COMMAND...              a step of the script's (a function), no check
# Checks, each one "ok" or "FAIL" line. A check may begin with its
# description in double quotes (a bash double-quoted string: $NAME expands);
# without one it is described by what it checks, as lib_checks.sh's
# helpers describe theirs. TEXT and ERE are the rest of the line, verbatim
# (after one space):
#   has N TEXT                 exactly N lines of the file contain TEXT (ct_has)
#   has~ N ERE                 exactly N lines match the extended regex (ct_has_re)
#   contains TEXT              a line contains TEXT
#   lacks TEXT                 no line (but "#" comment lines) contains TEXT
#   matches ERE                a line matches ERE
#   calls N PREFIX             N calls whose text starts with PREFIX (ct_count)
#   summary N FUNCTION         FUNCTION's summary row counts N calls
#   dropped N                  the summary counts N events dropped
#   balanced [open-ok]         every block closed, each line at its depth (ct_balance)
#   eq VALUE COMMAND...        COMMAND's output is VALUE (shell words)
#   ok SHELL-CODE              the shell code (the rest of the line: pipes,
#                              $(...), <(...), run in $work, without
#                              pipefail) succeeds
#   exit NAME N                run NAME exited with N
#   same NAME PLAIN            run NAME's stdout, stderr and exit code are run PLAIN's
#   same-as-plain [-q] NAME [LABEL]   stdout and exit code as run "plain"'s
#                              (and with -q nothing on stderr): 2 or 3 checks
#   bad-option NAME VAR=VALUE MESSAGE   a bad setting (ct_bad_option): 5 checks
#   refused NAME CODE ERE      run NAME was refused: exit code CODE, one
#                              stderr line, matching ERE, nothing on stdout
#                              (the program did not run): 4 checks
# Checks followed by the expected text, its lines each written after a "|"
# (the text is what follows the bar, exactly; no line: an empty text):
#   stdout NAME / stderr NAME  run NAME printed exactly this on stdout / stderr
#   out SHELL-CODE             the shell code (the rest of the line: pipes,
#                              $(...), run in $work, so a file of $work by its
#                              name) prints exactly this
#   tree [tid T] [between FIRST LAST | subtree FIRST]
#                              the file's call tree (ct_tree: indentation and
#                              text, @ADDR and 0xADDR for addresses) of thread
#                              T (default the main one), from the line with
#                              FIRST to the one with LAST or to the end of
#                              FIRST's call, is exactly this
# A line the runner does not know is a FAIL naming the file and the line.
# The script's variables a case reads must not be named as the runner's
# locals (c, n, i, f, b, w, at, line, lines, desc, rest, kind, body, out,
# name, text, count, file, part...): those would hide them.

ct_cases() {
    local file=$1 part=${2:-} lines n i at line desc rest kind body have_body have_desc skip=0 out=0 lack= c
    local -a w
    mapfile -t lines <"$file" || { ct_fail "cannot read $file"; return 0; }
    n=${#lines[@]}
    ct_case_in=
    for ((i = 0; i < n; i++)); do
        line=${lines[i]}
        [[ -z "${line//[[:space:]]/}" || "$line" == \#* ]] && continue
        if [[ "$line" =~ ^section[[:space:]]+([^[:space:]]+)[[:space:]]*$ ]]; then
            [[ -z "$part" || ${BASH_REMATCH[1]} == "$part" ]] && out=0 || out=1
            skip=0 lack=
            continue
        fi
        ((out)) && continue
        if [[ "$line" =~ ^needs([[:space:]].*)?$ ]]; then
            lack=
            for c in ${BASH_REMATCH[1]}; do command -v "$c" >/dev/null || lack+=" $c"; done
            [[ -z "$lack" ]] || echo "skip the checks of $(basename "$file"):$((i + 1)): no$lack"
            continue
        fi
        if [[ "$line" =~ ^engine[[:space:]]+(il|elt|any)[[:space:]]*$ ]]; then
            [[ ${BASH_REMATCH[1]} == any || ${BASH_REMATCH[1]} == "${CLRTRACE_ENGINE:-il}" ]] && skip=0 || skip=1
            continue
        fi
        at=$((i + 1))
        # the expected text that follows
        body=() have_body=0
        while ((i + 1 < n)) && [[ "${lines[i + 1]}" == \|* ]]; do
            body+=("${lines[i + 1]:1}")
            have_body=1
            i=$((i + 1))
        done
        ((skip)) || [[ -n "$lack" ]] && continue
        if [[ "$line" == \|* ]]; then
            ct_fail "$(basename "$file"):$at: expected text without a check before it"
            continue
        fi
        desc= have_desc=0
        if [[ "$line" =~ ^\"(([^\"\\]|\\.)*)\"[[:space:]]+(.*)$ ]]; then
            eval "desc=\"${BASH_REMATCH[1]}\""
            have_desc=1
            line=${BASH_REMATCH[3]}
        fi
        kind=${line%% *}
        rest=
        [[ "$line" == *" "* ]] && rest=${line#* }
        ct_case_one || ct_fail "$(basename "$file"):$at: cannot read: $line"
    done
}

# ct_case_one: one directive (the caller's kind, rest, desc,
# have_desc, body, have_body); 1 when it is not one.
ct_case_one() {
    local f=$ct_case_in b text count name expected actual
    local -a w
    b=$(basename "${f:-none}")
    # a body where the kind takes none
    case $kind in stdout|stderr|out|tree) ;; *) ((have_body == 0)) || return 1 ;; esac
    # the kinds whose arguments are shell words
    case $kind in
    ==) echo "== $rest"; return 0 ;;
    in|run|plain|\$|sh|eq|exit|same|same-as-plain|bad-option|balanced|stdout|stderr|tree)
        eval "w=($rest)" || return 1 ;;
    esac
    case $kind in
    in)
        [[ ${#w[@]} == 1 ]] || return 1
        [[ ${w[0]} == /* ]] && ct_case_in=${w[0]} || ct_case_in=$work/${w[0]} ;;
    run)
        # run NAME [VAR=VALUE...] [-- ARGS...]
        local envs=() name=${w[0]} k=1
        while ((k < ${#w[@]})) && [[ ${w[k]} != -- ]]; do envs+=("${w[k]}"); k=$((k + 1)); done
        run_traced "$name" "${envs[@]}" -- "${w[@]:k+1}"
        ct_case_in=$work/$name.txt ;;
    plain) run_plain "${w[@]}" ;;
    \$) ct_run "$work" "${w[@]}" ;;
    sh) "${w[@]}" ;;
    has|has~)
        [[ "$rest" =~ ^([0-9]+)\ (.*)$ ]] || return 1
        count=${BASH_REMATCH[1]} text=${BASH_REMATCH[2]}
        local opt=-cF what=with
        [[ $kind == has~ ]] && opt=-cE what=matching
        if ((have_desc)); then
            check_eq "$desc" "$count" "$(grep $opt -- "$text" "$f")"
        elif [[ $kind == has ]]; then
            ct_has "$f" "$count" "$text"
        else
            ct_has_re "$f" "$count" "$text"
        fi ;;
    contains)
        ((have_desc)) || desc="$b: a line with: $rest"
        check "$desc" grep -qF -- "$rest" "$f" ;;
    lacks)
        ((have_desc)) || desc="$b: no line with: $rest"
        check "$desc" ct_case_lacks "$f" "$rest" ;;
    matches)
        ((have_desc)) || desc="$b: a line matching /$rest/"
        check "$desc" grep -qE -- "$rest" "$f" ;;
    calls)
        [[ "$rest" =~ ^([0-9]+)\ (.*)$ ]] || return 1
        ((have_desc)) || desc="$b: ${BASH_REMATCH[1]} call(s) of ${BASH_REMATCH[2]}"
        check_eq "$desc" "${BASH_REMATCH[1]}" "$(ct_count "$f" "${BASH_REMATCH[2]}")" ;;
    summary)
        [[ "$rest" =~ ^([0-9]+)\ (.*)$ ]] || return 1
        ((have_desc)) || desc="$b: the summary counts ${BASH_REMATCH[1]} call(s) of ${BASH_REMATCH[2]}"
        check_eq "$desc" "${BASH_REMATCH[1]}" "$(ct_summary_calls "$f" "${BASH_REMATCH[2]}")" ;;
    dropped)
        [[ "$rest" =~ ^[0-9]+$ ]] || return 1
        ((have_desc)) || desc="$b: $rest events dropped"
        check_eq "$desc" "$rest" "$(summary_dropped "$f")" ;;
    balanced)
        ((have_desc)) || desc="$b: balanced, each line at its depth"
        check "$desc" ct_balance "$f" "${w[@]}" ;;
    eq)
        ((have_desc && ${#w[@]} >= 2)) || return 1
        check_eq "$desc" "${w[0]}" "$("${w[@]:1}")" ;;
    ok)
        ((have_desc)) && [[ -n "$rest" ]] || return 1
        check "$desc" ct_case_sh "$rest" ;;
    exit)
        [[ ${#w[@]} == 2 ]] || return 1
        ((have_desc)) || desc="${w[0]}: exit code ${w[1]}"
        check_eq "$desc" "${w[1]}" "$(cat "$work/${w[0]}.rc")" ;;
    same)
        [[ ${#w[@]} == 2 && $have_desc == 0 ]] || return 1
        check_same "${w[0]}" "${w[1]}" ;;
    same-as-plain)
        ((!have_desc)) || return 1
        ct_same_as_plain "${w[@]}" ;;
    bad-option)
        [[ ${#w[@]} == 3 && $have_desc == 0 ]] || return 1
        ct_bad_option "${w[@]}" ;;
    refused)
        [[ "$rest" =~ ^([^ ]+)\ ([0-9]+)\ (.+)$ ]] && ((!have_desc)) || return 1
        name=${BASH_REMATCH[1]} count=${BASH_REMATCH[2]} text=${BASH_REMATCH[3]}
        check_eq "$name: exit code $count" "$count" "$(cat "$work/$name.rc")"
        check_eq "$name: one stderr line" 1 "$(wc -l <"$work/$name.err")"
        check "$name: it says why" grep -qE -e "$text" "$work/$name.err"
        check "$name: the program did not run" ct_empty "$work/$name.out" ;;
    stdout|stderr)
        [[ ${#w[@]} == 1 ]] || return 1
        name=${w[0]}
        local ext=out
        [[ $kind == stderr ]] && ext=err
        if ((!have_desc)); then
            desc="$name: the program printed what its source says"
            [[ $kind == stderr ]] && desc="$name: its stderr is exactly the expected text"
        fi
        if ((${#body[@]} == 0)); then
            check "$desc" ct_empty "$work/$name.$ext"
        else
            check_eq "$desc" "$(printf '%s\n' "${body[@]}")" "$(cat "$work/$name.$ext")"
        fi ;;
    out)
        ((have_desc)) && [[ -n "$rest" ]] || return 1
        expected=
        ((${#body[@]})) && expected=$(printf '%s\n' "${body[@]}")
        check_eq "$desc" "$expected" "$(ct_case_sh "$rest")" ;;
    tree)
        ((have_desc && have_body)) || return 1
        local tid= sel=all a= z= k=0
        while ((k < ${#w[@]})); do
            case ${w[k]} in
            tid) tid=${w[k + 1]}; k=$((k + 2)) ;;
            between) sel=between a=${w[k + 1]} z=${w[k + 2]}; k=$((k + 3)) ;;
            subtree) sel=subtree a=${w[k + 1]}; k=$((k + 2)) ;;
            *) return 1 ;;
            esac
        done
        if [[ "$ct_case_tree_key" != "$f|$tid|$(stat -c %Y.%s "$f" 2>/dev/null)" ]]; then
            ct_case_tree=$(ct_tree "$f" $tid)
            ct_case_tree_key="$f|$tid|$(stat -c %Y.%s "$f" 2>/dev/null)"
        fi
        case $sel in
        all) actual=$ct_case_tree ;;
        between) actual=$(ct_between "$ct_case_tree" "$a" "$z") ;;
        subtree) actual=$(ct_subtree "$ct_case_tree" "$a") ;;
        esac
        check "$desc" ct_diff_tree "$(printf '%s\n' "${body[@]}")" "$actual" ;;
    *) return 1 ;;
    esac
    return 0
}
ct_case_tree_key=

# ct_case_sh CODE: the shell code of an `ok` or `out`, run in $work (in a
# subshell: the caller's $(...) or check's), without pipefail (a pipeline's
# status is its last command's: `clrtrace dump --help | grep -q X` is not
# failed by the SIGPIPE grep -q's early exit may send clrtrace).
ct_case_sh() { cd "$work" && set +o pipefail && eval "$1"; }

# ct_case_lacks FILE TEXT: no line but "#" comment lines holds TEXT. (No
# grep -q: its early exit would kill grep -v with SIGPIPE, which pipefail
# counts.)
ct_case_lacks() { ! grep -v '^#' "$1" | grep -F -- "$2" >/dev/null; }
