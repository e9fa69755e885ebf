#!/usr/bin/env bash
# Calls every /v1 operation of a running mergeq once, in the order a new user would, plus the
# common mistakes (no token, broken JSON, ...). Prints each answer and exits 1 if any status (or
# problem code) is not the expected one. Stops at once, with one line, when the service cannot be
# reached or refuses the token.
#
#   examples/walk-api.sh BASE_URL TOKEN [ORG]
#   examples/walk-api.sh http://localhost:3000 "$TOKEN"
#
# ORG (default acme) is the token's organization; the repository is ORG's: github.com/ORG/walk-api
# (override with MQ_REPO_HOST, MQ_REPO_OWNER, MQ_REPO_NAME). Each run uses a fresh branch, so it can
# be repeated against the same service. Works with any git host mode: the pull request numbers it
# submits do not exist, so they wait as NOT_READY and nothing is ever tested or merged.
# Needs bash, curl and node.
set -euo pipefail

if [[ $# -lt 2 ]]; then
  echo "usage: $0 BASE_URL TOKEN [ORG]   e.g. $0 http://localhost:3000 mq_..." >&2
  exit 2
fi
BASE=${1%/}
BASE=${BASE%/v1}
TOKEN=$2
ORG=${3:-acme}
REPO_HOST=${MQ_REPO_HOST:-github.com}
REPO_OWNER=${MQ_REPO_OWNER:-$ORG}
REPO_NAME=${MQ_REPO_NAME:-walk-api}
BRANCH="walk-$(date +%s)-$$"
PR_A=900001
PR_B=900002

REPO="{\"host\":\"$REPO_HOST\",\"owner\":\"$REPO_OWNER\",\"name\":\"$REPO_NAME\"}"
QUEUE="\"repo\":$REPO,\"targetBranch\":\"$BRANCH\""

BODY=$(mktemp)
trap 'rm -f "$BODY"' EXIT
FAILURES=0
STEP=0
CHECKS=0

# expect_that DESCRIPTION COMMAND...: one more check on the last answer, beyond its status.
expect_that() {
  local description=$1
  shift
  CHECKS=$((CHECKS + 1))
  if "$@"; then
    echo "    check: $description ok"
  else
    echo "    check: $description UNEXPECTED"
    FAILURES=$((FAILURES + 1))
  fi
}

# step TITLE EXPECTED_STATUS EXPECTED_CODE|- METHOD PATH [curl args...]
# Sends the request, prints status and body, and checks the status and (for errors) the problem code.
step() {
  local title=$1 want=$2 want_code=$3 method=$4 path=$5
  shift 5
  STEP=$((STEP + 1))
  CHECKS=$((CHECKS + 1))
  local status
  status=$(curl -sS -o "$BODY" -w '%{http_code}' -X "$method" "$BASE$path" "$@" 2>/dev/null) || status=000
  # Nothing after these can succeed: stop with one clear line instead of a page of failures.
  if [[ $status == 000 ]]; then
    echo "mergeq is not reachable at $BASE: is it running (mergeq serve) and is the address right?" >&2
    exit 1
  fi
  if [[ $status == 401 && $want != 401 ]]; then
    echo "the service refused the token (401 at $method $path): pass a valid, unrevoked token (mergeq token create --org $ORG)" >&2
    exit 1
  fi
  local code=-
  if [[ $want_code != - ]]; then
    code=$(grep -o '"code":"[^"]*"' "$BODY" | head -n 1 | cut -d'"' -f4 || true)
    code=${code:-none}
  fi
  local verdict=ok
  if [[ $status != "$want" || $code != "$want_code" ]]; then
    verdict=UNEXPECTED
    FAILURES=$((FAILURES + 1))
  fi
  local expected="$want"
  [[ $want_code != - ]] && expected="$want $want_code" && status="$status $code"
  printf '\n%02d. %s\n    %s %s -> %s (expected %s) %s\n' "$STEP" "$title" "$method" "$path" "$status" "$expected" "$verdict"
  # Long answers (metrics) are cut; the whole body is in the status check above.
  if [[ $(wc -l <"$BODY") -gt 12 ]]; then
    head -n 12 "$BODY" | sed 's/^/    /'
    echo "    ... ($(wc -l <"$BODY") lines)"
  else
    sed 's/^/    /' "$BODY"
    echo
  fi
}

# op TITLE EXPECTED_STATUS EXPECTED_CODE|- OPERATION JSON_BODY: a POST /v1 operation with the token.
op() {
  step "$1" "$2" "$3" POST "/v1/$4" -H "x-api-token: $TOKEN" -H 'content-type: application/json' --data-binary "$5"
}

# field EXPRESSION: a value of the last answer, e.g. field 'b.state' (b is the parsed body).
field() {
  node -e 'const b = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); console.log(new Function("b", "return " + process.argv[2])(b));' "$BODY" "$1"
}

echo "mergeq at $BASE, repository $REPO_HOST/$REPO_OWNER/$REPO_NAME, branch $BRANCH"

step 'Liveness, no token needed' 200 - GET /healthz

# --- Mistakes a client makes first ---
step 'No token: 401' 401 unauthorized POST /v1/getQueue -H 'content-type: application/json' --data-binary "{$QUEUE}"
step 'Unknown token: 401' 401 unauthorized POST /v1/getQueue -H 'x-api-token: mq_not-a-real-token' -H 'content-type: application/json' --data-binary "{$QUEUE}"
op 'Broken JSON: 400' 400 invalid_json getQueue '{"repo": {"host": "github.com",'
op 'Invalid field (concurrency 0): 400 naming the field' 400 invalid_request createQueue "{$QUEUE,\"concurrency\":0}"
step 'Body that is not JSON: 415' 415 unsupported_media_type POST /v1/getQueue -H "x-api-token: $TOKEN" -H 'content-type: text/plain' --data-binary 'hello'
op "Another organization's repository: 403" 403 forbidden getQueue "{\"repo\":{\"host\":\"github.com\",\"owner\":\"not-$ORG-$$\",\"name\":\"x\"},\"targetBranch\":\"main\"}"
step 'Wrong method: 405' 405 method_not_allowed GET /v1/getQueue -H "x-api-token: $TOKEN"
op 'Queue not created yet: 404' 404 queue_not_found getQueue "{$QUEUE}"

# --- Queue configuration ---
op 'createQueue (concurrency 2)' 200 - createQueue "{$QUEUE,\"concurrency\":2}"
op 'createQueue again: 409' 409 queue_exists createQueue "{$QUEUE}"
op 'getQueue' 200 - getQueue "{$QUEUE}"
op 'updateQueue: paused, concurrency 3' 200 - updateQueue "{$QUEUE,\"state\":\"paused\",\"concurrency\":3}"
op 'updateQueue: draining (with nothing in flight it becomes paused)' 200 - updateQueue "{$QUEUE,\"state\":\"DRAINING\"}"
for _ in $(seq 1 50); do
  curl -sS -o "$BODY" -X POST "$BASE/v1/getQueue" -H "x-api-token: $TOKEN" -H 'content-type: application/json' --data-binary "{$QUEUE}"
  [[ $(field 'b.state') == paused ]] && break
  sleep 0.1
done
op 'getQueue: the drained queue is paused' 200 - getQueue "{$QUEUE}"
expect_that 'state is paused' test "$(field 'b.state')" = paused
op 'updateQueue: running' 200 - updateQueue "{$QUEUE,\"state\":\"running\"}"

# --- Pull requests ---
op 'setImpactedTargets (allowed before the PR is submitted)' 200 - setImpactedTargets \
  "{$QUEUE,\"pr\":{\"number\":$PR_A,\"sha\":\"0123456789abcdef0123456789abcdef01234567\"},\"impactedTargets\":[\"//app:server\",\"//lib:core\"]}"
op "submitPullRequest #$PR_A" 200 - submitPullRequest "{$QUEUE,\"pr\":{\"number\":$PR_A}}"
op "submitPullRequest #$PR_B, priority high" 200 - submitPullRequest "{$QUEUE,\"pr\":{\"number\":\"$PR_B\"},\"priority\":\"HIGH\"}"
op "getSubmittedPullRequest #$PR_A" 200 - getSubmittedPullRequest "{$QUEUE,\"pr\":{\"number\":$PR_A}}"
op 'getSubmittedPullRequest of a PR never submitted: 404' 404 pull_request_not_found getSubmittedPullRequest "{$QUEUE,\"pr\":{\"number\":1}}"
op 'getMergeQueueTestingDetails: runs in flight' 200 - getMergeQueueTestingDetails "{$QUEUE}"
op "getMergeQueueTestingDetails: runs of #$PR_A" 200 - getMergeQueueTestingDetails "{$QUEUE,\"pr\":{\"number\":$PR_A}}"
op "restartTestsOnPullRequest #$PR_A: it is not testing, 409" 409 invalid_state restartTestsOnPullRequest "{$QUEUE,\"pr\":{\"number\":$PR_A}}"
op 'deleteQueue while PRs are in it: 409' 409 queue_not_empty deleteQueue "{$QUEUE}"
op "cancelPullRequest #$PR_A" 200 - cancelPullRequest "{$QUEUE,\"pr\":{\"number\":$PR_A}}"
op "cancelPullRequest #$PR_A again (idempotent)" 200 - cancelPullRequest "{$QUEUE,\"pr\":{\"number\":$PR_A}}"
op "cancelPullRequest #$PR_B" 200 - cancelPullRequest "{$QUEUE,\"pr\":{\"number\":$PR_B}}"

# --- Metrics and quarantined tests ---
step 'getMergeQueueMetrics of the repository' 200 - GET "/v1/getMergeQueueMetrics?repo=$REPO_OWNER/$REPO_NAME&repoHost=$REPO_HOST" -H "x-api-token: $TOKEN"
expect_that "mq_pr_conclusions_1h_total{branch=\"$BRANCH\",conclusion=\"cancelled\"} is 2" \
  grep -q "^mq_pr_conclusions_1h_total{.*branch=\"$BRANCH\".*conclusion=\"cancelled\".*} 2$" "$BODY"
step 'getMergeQueueMetrics: repo without repoHost, 400' 400 invalid_request GET "/v1/getMergeQueueMetrics?repo=$REPO_OWNER/$REPO_NAME" -H "x-api-token: $TOKEN"
op 'flaky-tests/list-quarantined-tests' 200 - flaky-tests/list-quarantined-tests \
  "{\"repo\":$REPO,\"org_url_slug\":\"$ORG\",\"page_query\":{\"page_size\":10,\"page_token\":\"\"}}"

# --- Clean up ---
op 'deleteQueue, now empty' 200 - deleteQueue "{$QUEUE}"
op 'deleteQueue again: {"deleted": false}' 200 - deleteQueue "{$QUEUE}"

echo
if [[ $FAILURES -gt 0 ]]; then
  echo "walk-api: $FAILURES of $CHECKS checks were not as expected"
  exit 1
fi
echo "walk-api: $STEP calls, all $CHECKS checks as expected"
