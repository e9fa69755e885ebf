#!/usr/bin/env bash
# Watch the queue work, without GitHub: against a mergeq started with MERGEQ_GITHOST=sandbox, opens
# ten simulated pull requests (the 3rd one breaks the build), submits them to a queue testing four at
# a time, waits until every one has left the queue, and prints how each ended. Exits 1 unless the
# nine good ones merged, in order, and the bad one failed.
#
#   examples/sandbox-demo.sh BASE_URL TOKEN
#   examples/sandbox-demo.sh http://localhost:3000 "$TOKEN"
#
# The repository is github.com/acme/demo-<time> (a fresh one per run; override the owner with
# MQ_REPO_OWNER, the name with MQ_REPO_NAME). CI of each PR takes MQ_CI_MINUTES (default 0.05,
# i.e. 3 seconds); MQ_TIMEOUT_SECONDS (default 120) bounds the wait. Needs bash, curl and node.
set -euo pipefail

if [[ $# -lt 2 ]]; then
  echo "usage: $0 BASE_URL TOKEN   e.g. $0 http://localhost:3000 mq_..." >&2
  exit 2
fi
BASE=${1%/}
BASE=${BASE%/v1}
TOKEN=$2
REPO_OWNER=${MQ_REPO_OWNER:-acme}
REPO_NAME=${MQ_REPO_NAME:-demo-$(date +%s)}
CI_MINUTES=${MQ_CI_MINUTES:-0.05}
TIMEOUT_SECONDS=${MQ_TIMEOUT_SECONDS:-120}
PR_COUNT=10
BAD=3

REPO="{\"host\":\"github.com\",\"owner\":\"$REPO_OWNER\",\"name\":\"$REPO_NAME\"}"
QUEUE="\"repo\":$REPO,\"targetBranch\":\"main\""

BODY=$(mktemp)
trap 'rm -f "$BODY"' EXIT

# post PATH JSON_BODY: the status code; the answer is in $BODY.
post() {
  curl -sS -o "$BODY" -w '%{http_code}' -X POST "$BASE$1" -H "x-api-token: $TOKEN" -H 'content-type: application/json' --data-binary "$2"
}

# api OPERATION JSON_BODY: a /v1 operation that must answer 200 (else the script stops).
api() {
  local status
  status=$(post "/v1/$1" "$2")
  if [[ $status != 200 ]]; then
    echo "$1 answered $status: $(cat "$BODY")" >&2
    exit 1
  fi
}

# field EXPRESSION: a value of the last answer, e.g. field 'b.state' (b is the parsed body).
field() {
  node -e 'const b = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); const v = new Function("b", "return " + process.argv[2])(b); console.log(typeof v === "string" ? v : JSON.stringify(v));' "$BODY" "$1"
}

echo "mergeq at $BASE; sandbox repository github.com/$REPO_OWNER/$REPO_NAME"

# 1. Ten pull requests in the sandbox; CI fails on any test branch that contains the bad one.
numbers=()
for i in $(seq 1 $PR_COUNT); do
  bad=false
  [[ $i -eq $BAD ]] && bad=true
  status=$(post /sandbox/pulls "{\"repo\":$REPO,\"title\":\"Change $i\",\"author\":\"demo\",\"bad\":$bad,\"ciMinutes\":$CI_MINUTES}")
  if [[ $status == 404 ]]; then
    echo "POST /sandbox/pulls answered 404: start the service with MERGEQ_GITHOST=sandbox" >&2
    exit 1
  elif [[ $status != 200 ]]; then
    echo "POST /sandbox/pulls answered $status: $(cat "$BODY")" >&2
    exit 1
  fi
  numbers+=("$(field 'b.number')")
done
bad_number=${numbers[$((BAD - 1))]}
echo "opened pull requests ${numbers[*]} (#$bad_number is bad); CI takes $CI_MINUTES minutes per run"

# 2. A single-mode queue that tests up to four at once, each on top of those ahead of it.
api createQueue "{$QUEUE,\"mode\":\"single\",\"concurrency\":4}"
echo "queue created: mode $(field 'b.mode'), concurrency $(field 'b.concurrency')"
for n in "${numbers[@]}"; do api submitPullRequest "{$QUEUE,\"pr\":{\"number\":$n}}"; done
echo "submitted ${#numbers[@]} pull requests"

# 3. Wait until the queue is empty, showing what it does.
started=$SECONDS
last=''
while :; do
  api getQueue "{$QUEUE}"
  now=$(field 'b.enqueuedPullRequests.map((p) => "#" + p.prNumber + ":" + p.state).join(" ")')
  if [[ $now != "$last" ]]; then
    printf '%4ss  %s\n' $((SECONDS - started)) "${now:-(empty)}"
    last=$now
  fi
  if [[ -z $now ]]; then
    took=$((SECONDS - started))
    break
  fi
  if ((SECONDS - started > TIMEOUT_SECONDS)); then
    echo "the queue still holds pull requests after ${TIMEOUT_SECONDS}s" >&2
    exit 1
  fi
  sleep 0.5
done

# 4. How each one ended.
echo
printf '%-5s %-10s %-14s %s\n' PR STATE REASON DETAIL
merged=()
failures=0
for n in "${numbers[@]}"; do
  api getSubmittedPullRequest "{$QUEUE,\"pr\":{\"number\":$n}}"
  state=$(field 'b.state')
  printf '%-5s %-10s %-14s %s\n' "#$n" "$state" "$(field 'b.reason?.code ?? "-"')" "$(field 'b.reason?.message ?? ""')"
  if [[ $n == "$bad_number" ]]; then
    [[ $state == FAILED ]] || failures=$((failures + 1))
  else
    [[ $state == MERGED ]] || failures=$((failures + 1))
  fi
done
api getMergeQueueTestingDetails "{$QUEUE,\"pr\":{\"number\":$bad_number}}"
echo
echo "test runs that held #$bad_number:"
field 'b.testRuns.map((r) => "  " + r.status.padEnd(10) + " tested " + r.testedPullRequests.map((p) => "#" + p.prNumber).join(" ")).join("\n")'

# The order the sandbox merged them in (by merge time, then PR number for merges of the same instant).
curl -sS -o "$BODY" -H "x-api-token: $TOKEN" "$BASE/sandbox/pulls?host=github.com&owner=$REPO_OWNER&name=$REPO_NAME"
order=$(field 'b.pulls.filter((p) => p.state === "merged").sort((x, y) => x.mergedAt.localeCompare(y.mergedAt) || x.number - y.number).map((p) => p.number).join(" ")')
echo
echo "merged into main, in order: $order"
expected_order=$(printf '%s\n' "${numbers[@]}" | grep -vx "$bad_number" | paste -sd' ')
[[ $order == "$expected_order" ]] || failures=$((failures + 1))

echo
if [[ $failures -gt 0 ]]; then
  echo "sandbox-demo: not as expected (nine MERGED in order $expected_order, #$bad_number FAILED)"
  exit 1
fi
echo "sandbox-demo: $((PR_COUNT - 1)) merged in queue order, #$bad_number failed its tests; the queue was empty after ${took}s"
