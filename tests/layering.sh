#!/usr/bin/env bash
# The rooms' rules (docs/architecture.md, "Rooms and their rules"), checked
# over every #include "..." line of src/: a file may include a header of its
# own folder by its bare name, and another room's header by its path from
# src/ ("format/event.h") or a library's public header ("clrsig/clrsig.h"),
# and only of a room its own room may include. Prints each include that
# breaks a rule, and each room that is not in the table; exit 1 if any.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root/src" || exit 1

# room: the rooms it may include (besides itself). Libraries are named by
# their public header folder (clrsig, clrmeta, clril).
declare -A may=(
  [sig]=""
  [meta]="sig clrsig"
  [il]="sig clrsig"
  [base]=""
  [format]="base"
  [views]="format base"
  [agent/runtime]="format base views"
  [agent/model]="agent/model/plans agent/runtime format base clrsig clrmeta"
  [agent/model/plans]="agent/model agent/runtime format base clrsig clrmeta"
  [agent/hookside]="format base"
  [agent/writer]="agent/hookside agent/model agent/model/plans agent/runtime views format base"
  [agent/record]="agent/hookside agent/writer agent/model agent/model/plans agent/runtime format base"
  [agent/engines/elt]="agent/engines/elt/asm agent/record agent/hookside agent/writer agent/model agent/model/plans agent/runtime format base"
  [agent/engines/elt/asm]=""
  [agent/engines/il]="agent/record agent/hookside agent/writer agent/model agent/model/plans agent/runtime format base clril clrsig"
  [agent/com]="agent/engines/elt agent/engines/elt/asm agent/engines/il agent/record agent/hookside agent/writer agent/model agent/model/plans agent/runtime views format base"
  [cli]="cli/export cli/input views format base clrsig clrmeta"
  [cli/input]="views format base"
  [cli/export]="cli/input views format base"
)
# Headers kept for some rooms only (a room's faces, as agent/record's three:
# record.h for com/, skeletons.h for the engines, internal.h for itself): the
# rooms that may include each.
declare -A only=(
  [agent/record/skeletons.h]="agent/engines/elt agent/engines/il"
  [agent/record/internal.h]="agent/record"
  [agent/model/plans/internal.h]="agent/model/plans"
)
# A library's public headers are its own room.
lib_room() { case $1 in clrsig) echo sig ;; clrmeta) echo meta ;; clril) echo il ;; *) echo "$1" ;; esac; }

bad=0
while IFS= read -r file; do
  dir=$(dirname "$file")
  room=$dir
  if [[ -z "${may[$room]+x}" ]]; then
    echo "$file: its folder $room is not a room of the table (tests/layering.sh, docs/architecture.md)"
    bad=1
    continue
  fi
  while IFS= read -r inc; do
    whole=$inc
    [[ "$inc" != */* ]] && whole=$dir/$inc
    if [[ -n "${only[$whole]+x}" && " ${only[$whole]} " != *" $room "* ]]; then
      echo "$file: includes \"$inc\": only ${only[$whole]} may include it"
      bad=1
      continue
    fi
    if [[ "$inc" != */* ]]; then
      [[ -e "$dir/$inc" ]] && continue
      echo "$file: \"$inc\": a bare name must be a header of the file's own folder"
      bad=1
      continue
    fi
    target=$(dirname "$inc")
    case $target in clrsig | clrmeta | clril) ;; *)
      if [[ ! -e "$inc" ]]; then
        echo "$file: \"$inc\": no such header under src/"
        bad=1
        continue
      fi ;;
    esac
    [[ "$(lib_room "$target")" == "$room" || "$target" == "$room" ]] && continue
    ok=0
    for r in ${may[$room]}; do [[ "$r" == "$target" ]] && ok=1; done
    if ((!ok)); then
      echo "$file: includes \"$inc\": $room may include only: ${may[$room]:-nothing}"
      bad=1
    fi
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file")
done < <(find . -name '*.[chS]' | sed 's|^\./||' | sort)
if ((bad)); then
  echo "layering: rules broken (the table is in tests/layering.sh and docs/architecture.md)"
  exit 1
fi
echo "layering: every include of src/ follows the rooms' rules"
