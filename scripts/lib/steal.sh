# CPU time the hypervisor gave to other guests while a benchmark ran (sourced, not run).
# On a shared virtual machine this "steal" time is what makes runs of the same build differ;
# each benchmark prints it beside its figures so a slow run can be told from a slow build.

steal_mark() { # -> "steal total" jiffies from /proc/stat (empty where there is none)
  awk '/^cpu / { print $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat 2>/dev/null
}

STEAL_START="$(steal_mark)"

steal_report() { # prints the share of CPU time stolen since the script started
  [[ -n "$STEAL_START" ]] || return 0
  local now; now="$(steal_mark)"
  awk -v a="$STEAL_START" -v b="$now" 'BEGIN { split(a, x, " "); split(b, y, " ");
    if (y[2] > x[2]) printf "CPU time stolen by the hypervisor during the benchmark: %.1f%%\n", (y[1] - x[1]) * 100 / (y[2] - x[2]) }'
}
