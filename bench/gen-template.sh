#!/usr/bin/env bash
# Prints an authoring document (the body of POST /api/v1/process-templates) of $1 tasks, each
# with 3 form fields (shortText, number, email), in $2 sections (default: 5, or 1 under 10 tasks).
set -euo pipefail
tasks="${1:?number of tasks}"
sections="${2:-$(( tasks < 10 ? 1 : 5 ))}"
per=$(( (tasks + sections - 1) / sections ))
printf '{"title":"Bench %s tasks","description":"procflow bench: %s tasks x 3 fields","sections":[' "$tasks" "$tasks"
n=0
for ((s = 0; s < sections; s++)); do
  ((s > 0)) && printf ','
  printf '{"title":"Section %d","color":"#3B82F6","tasks":[' "$((s + 1))"
  for ((t = 0; t < per && n < tasks; t++, n++)); do
    ((t > 0)) && printf ','
    printf '{"title":"Task %d","webhook_enabled":true,"custom_elements":[' "$((n + 1))"
    printf '{"type":"shortText","label":"Name %d","required":true},' "$n"
    printf '{"type":"number","label":"Amount %d"},' "$n"
    printf '{"type":"email","label":"Contact %d"}' "$n"
    printf ']}'
  done
  printf ']}'
done
printf ']}\n'
