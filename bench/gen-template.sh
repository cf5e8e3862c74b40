#!/usr/bin/env bash
# Prints an authoring document (the body of POST /api/v1/process-templates) of $1 tasks, each
# with 3 form fields (shortText, number, email), in $2 sections (default: 5, or 1 under 10 tasks).
# With a third argument `logic` (bench/logic.sh), the document also has process logic (API
# contract 12): every task a ref (t<n>) and its shortText a ref (name-<n>); up to 20 rules, rule
# r showing task <last - r> while task r's name contains "vip"; up to 20 dependencies, task d
# waiting for task d - 1 (d = 1..20). As many of each as the task count allows (a rule only
# names tasks after the one it reads).
set -euo pipefail
tasks="${1:?number of tasks}"
sections="${2:-$(( tasks < 10 ? 1 : 5 ))}"
logic="${3:-}"
per=$(( (tasks + sections - 1) / sections ))
deps=$(( tasks - 1 < 20 ? tasks - 1 : 20 ))
printf '{"title":"Bench %s tasks%s","description":"procflow bench: %s tasks x 3 fields","sections":[' \
  "$tasks" "${logic:+ with logic}" "$tasks"
n=0
for ((s = 0; s < sections; s++)); do
  ((s > 0)) && printf ','
  printf '{"title":"Section %d","color":"#3B82F6","tasks":[' "$((s + 1))"
  for ((t = 0; t < per && n < tasks; t++, n++)); do
    ((t > 0)) && printf ','
    printf '{"title":"Task %d","webhook_enabled":true,' "$((n + 1))"
    if [ -n "$logic" ]; then
      printf '"ref":"t%d",' "$n"
      ((n >= 1 && n <= deps)) && printf '"depends_on":["t%d"],' "$((n - 1))"
      printf '"custom_elements":[{"ref":"name-%d",' "$n"
    else
      printf '"custom_elements":[{'
    fi
    printf '"type":"shortText","label":"Name %d","required":true},' "$n"
    printf '{"type":"number","label":"Amount %d"},' "$n"
    printf '{"type":"email","label":"Contact %d"}' "$n"
    printf ']}'
  done
  printf ']}'
done
printf ']'
if [ -n "$logic" ]; then
  printf ',"rules":['
  for ((r = 0; r < 20 && r < tasks - 1 - r; r++)); do
    ((r > 0)) && printf ','
    printf '{"if":{"element":"name-%d","is":"contains","value":"vip"},"show":["t%d"]}' \
      "$r" "$((tasks - 1 - r))"
  done
  printf ']'
fi
printf '}\n'
