// The mergeq web page: plain DOM, no build step. Every text goes in through textContent (never HTML).
import { autoEnqueueControl, mergeWindowsControl, restartBudgetsControl } from './policy-forms.js';

const main = document.getElementById('main');
const live = document.getElementById('live');
let csrfToken = null;
let events = null;
let rendering = Promise.resolve();

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

class SignedOut extends Error {}

async function api(path, options = {}) {
  const headers = { Accept: 'application/json' };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  if (options.method && options.method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  const res = await fetch(`/ui/api/${path}`, { method: options.method ?? 'GET', headers, credentials: 'same-origin', body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const body = await res.json().catch(() => ({}));
  if (res.status === 401 && path !== 'session') throw new SignedOut();
  if (!res.ok) throw Object.assign(new Error(body.detail || body.title || `HTTP ${res.status}`), { problems: body.errors ?? [] });
  return body;
}

const queueKey = (repo, branch) => new URLSearchParams({ repo: `${repo.host}/${repo.owner}/${repo.name}`, branch }).toString();
const queueHref = (repo, branch) => `#/queue?${queueKey(repo, branch)}`;
const pullHref = (repoParam, branch, number) => `#/pull?${new URLSearchParams({ repo: repoParam, branch, number: String(number) })}`;
const time = (iso) => (iso ? new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) : '—');
/** "ETA 14:20 (14:05–14:40)": the point estimate and the range 80% of merges fall in. */
const eta = (p) => {
  const range = p.estimatedMergeRange;
  if (!range || range.earliest === range.latest) return time(p.estimatedMergeAt);
  return `${time(p.estimatedMergeAt)} (${time(range.earliest)}–${time(range.latest)})`;
};
const dateTime = (iso) => new Date(iso).toLocaleString([], { dateStyle: 'short', timeStyle: 'medium' });
const duration = (seconds) => (seconds === null || seconds === undefined ? '—' : seconds < 90 ? `${Math.round(seconds)} s` : seconds < 5400 ? `${Math.round(seconds / 60)} min` : `${(seconds / 3600).toFixed(1)} h`);
const stateBadge = (state, label = state) => el('span', { class: `state state-${state}` }, label);
// Who broke what (docs/verdicts.md): the verdict's code as a badge, then its one line.
const verdictCell = (p) => (p.verdict ? el('span', { class: 'verdict' }, stateBadge(`verdict-${p.verdict.code}`, p.verdict.code), ' ', p.verdict.message) : (p.reason?.message ?? ''));

// Set while a live update (not the person's own action) redraws the page.
let liveRedraw = false;

function show(title, ...content) {
  // A live update whose data arrived while the person started filling in a form keeps the form:
  // the page is redrawn once they leave it (refresh checks this when the update starts, but its
  // data may arrive after they began typing).
  const form = liveRedraw ? document.activeElement?.closest('main form') : null;
  if (form) return void redrawOnLeaving(form);
  document.title = `${title} · mergeq`;
  main.replaceChildren(...content.filter((c) => c !== null && c !== undefined));
}

function table(caption, headers, rows, wideColumns = []) {
  return el('div', { class: 'table-wrap' },
    el('table', {},
      el('caption', { class: 'muted' }, caption),
      el('thead', {}, el('tr', {}, headers.map((h, i) => el('th', { scope: 'col', class: wideColumns.includes(i) ? 'wide' : null }, h)))),
      el('tbody', {}, rows.map((cells) => el('tr', {}, cells.map((c, i) => el('td', { class: wideColumns.includes(i) ? 'wide' : null }, c)))))));
}

function signInView(message) {
  document.getElementById('nav').hidden = true;
  const input = el('input', { id: 'token', name: 'token', type: 'password', autocomplete: 'off', required: true, spellcheck: 'false', 'aria-describedby': 'token-help' });
  const error = el('p', { class: 'error', role: 'alert' }, message ?? '');
  const form = el('form', { class: 'sign-in', onsubmit: async (e) => {
    e.preventDefault();
    try {
      const session = await api('session', { method: 'POST', body: { token: input.value.trim() } });
      input.value = '';
      signedIn(session);
      route();
    } catch (err) {
      error.textContent = err instanceof SignedOut ? 'That token is unknown or revoked.' : `Could not sign in: ${err.message}`;
      input.focus();
    }
  } },
  el('label', { for: 'token' }, 'API token'),
  input,
  el('p', { class: 'muted', id: 'token-help' },
    'A token comes from the machine that runs mergeq: ', el('code', {}, 'npx mergeq token create --org <org>'),
    ' (the organization first, once: ', el('code', {}, 'npx mergeq org create <org> --owner github.com/<owner>'),
    '). It is sent once; the page keeps only a session cookie.'),
  el('button', { type: 'submit' }, 'Sign in'),
  error);
  show('Sign in', el('h1', {}, 'Sign in'), form);
  input.focus();
}

function signedIn(session) {
  csrfToken = session.csrfToken;
  document.getElementById('org').textContent = `Organization ${session.org}`;
  document.getElementById('nav').hidden = false;
  if (!events) {
    events = new EventSource('/ui/api/events');
    events.addEventListener('queues', () => refresh());
  }
}

function signedOut(message) {
  csrfToken = null;
  events?.close();
  events = null;
  signInView(message);
}

async function queuesView() {
  const { queues, failingWebhooks = [] } = await api('queues');
  const rows = queues.map((q) => [
    el('a', { href: queueHref(q.repo, q.branch) }, `${q.repo.owner}/${q.repo.name} · ${q.branch}`),
    q.mergeHold ? el('span', {}, stateBadge(q.state), el('span', { class: 'held' }, ` · held: ${q.mergeHold.message}`)) : stateBadge(q.state), q.mode, String(q.depth), String(q.runsInFlight), String(q.mergedLastHour), String(q.failedLastHour), duration(q.p50TimeInQueueSeconds),
  ]);
  show('Queues', el('h1', {}, 'Queues'),
    failingWebhooks.map((w) => el('p', { class: 'notice', role: 'status' },
      `${w.format === 'slack_blocks' || w.format === 'teams' ? 'Chat channel' : 'Webhook'} ${w.id} (${w.format}, ${w.url}${w.directMessages ? ', with direct messages to authors' : ''}) `
      + (w.enabled ? `has failed every delivery since ${dateTime(w.failingSince)}` : `is disabled: ${w.disabledReason ?? 'by a user'}`)
      + '. The queues go on without it; its delivery log says why (mergeq webhook deliveries).')),
    queues.length ? table('Every queue of your organization', ['Queue', 'State', 'Mode', 'Depth', 'Runs in flight', 'Merged (1 h)', 'Failed (1 h)', 'p50 time in queue'], rows, [2, 7])
      : el('p', {}, 'No queues yet. Create one with the createQueue operation of the API.'));
}

// A bisection run tests a prefix of a failed batch; a main run of several own PRs is a batch.
function runTitle(run, ownCount) {
  if (run.kind === 'bisection') return `Bisection · first ${ownCount}`;
  return ownCount > 1 ? `Batch of ${ownCount}` : 'Run';
}

const prList = (numbers) => numbers.map((n) => `#${n}`).join(', ');

// What the run does (or did), in words: the API's `pending` covers building the branch and testing it.
function runSummary(run, runOwn, branch) {
  const own = prList(runOwn);
  const ahead = run.dependentPrs.length ? ` on top of ${prList(run.dependentPrs)}` : '';
  const checks = run.statusChecks.length;
  const passed = run.statusChecks.filter((c) => c.state === 'success').length;
  switch (run.status) {
    case 'pending':
      if (!run.testBranchSha) return { badge: 'starting', text: `Building the test branch: ${own}${ahead} on ${branch}` };
      return { badge: 'testing', text: `Testing ${own}${ahead} on ${branch}${checks ? ` · ${passed} of ${checks} checks passed` : ' · waiting for CI'}` };
    case 'passed': return { badge: 'passed', text: `Passed: ${own}${ahead}` };
    case 'failed': return { badge: 'failed', text: `Failed: ${own}${ahead}` };
    case 'timed_out': return { badge: 'timed out', text: `No verdict in time: ${own}${ahead}` };
    default: return { badge: run.status, text: `Cancelled: ${own}${ahead}` };
  }
}

function runCard(run, repoParam, branch, ownNumbers) {
  const runOwn = run.testedPullRequests.filter((p) => !run.dependentPrs.includes(p.prNumber)).map((p) => p.prNumber);
  // Highlighted: the run's own PRs, or on a PR's page that PR.
  const own = new Set(ownNumbers ?? runOwn);
  const failing = run.statusChecks.filter((c) => c.state === 'failure' || c.state === 'error');
  const summary = runSummary(run, runOwn, branch);
  return el('li', { class: 'run' },
    el('div', {}, el('strong', { class: 'run-kind' }, runTitle(run, runOwn.length)), ' ', stateBadge(`run-${run.status}`, summary.badge), el('span', { class: 'muted' }, ` since ${time(run.createdAt)}`)),
    el('p', { class: 'run-does' }, summary.text),
    el('ol', { class: 'stack', 'aria-label': 'What the run holds, bottom first' },
      el('li', { class: 'base' }, `${branch} ${run.baseSha ? run.baseSha.slice(0, 7) : ''}`),
      run.testedPullRequests.map((p) => el('li', { class: own.has(p.prNumber) ? 'own' : null }, el('a', { href: pullHref(repoParam, branch, p.prNumber) }, `#${p.prNumber}`), ` ${p.prTitle}`))),
    run.statusChecks.length ? el('ul', {}, run.statusChecks.map((c) => el('li', {}, c.url ? el('a', { href: c.url, rel: 'noreferrer' }, c.context) : c.context, ' ', stateBadge(c.state)))) : el('p', { class: 'muted' }, 'No checks reported yet'),
    failing.length ? el('p', { class: 'error' }, `Failing: ${failing.map((c) => c.context).join(', ')}`) : null);
}

async function queueView(params) {
  const repoParam = params.get('repo');
  const branch = params.get('branch');
  const { queue, runsInFlight, recentlyEnded } = await api(`queue?${new URLSearchParams({ repo: repoParam, branch })}`);
  const setState = (state) => async () => {
    await act(() => api('queue/state', { method: 'POST', body: { repo: repoParam, branch, state } }), `Queue ${state === 'running' ? 'resumed' : state}`);
  };
  const prs = queue.enqueuedPullRequests;
  const rows = unitsOf(prs).map((unit) => (unit[0].stack ? stackRow(unit, repoParam, branch) : [
    unit[0].position === null ? '—' : String(unit[0].position),
    el('a', { href: pullHref(repoParam, branch, unit[0].prNumber) }, `#${unit[0].prNumber} ${unit[0].prTitle}`),
    stateBadge(unit[0].state), unit[0].priorityName, etaCell(unit[0]), whyOf(unit[0]), unit[0].verdict ? verdictCell(unit[0]) : '—',
  ]));
  show(`${queue.repo.owner}/${queue.repo.name} · ${branch}`,
    el('p', {}, el('a', { href: '#/' }, '← Queues')),
    el('h1', {}, `${queue.repo.owner}/${queue.repo.name} · ${branch}`),
    el('p', {}, 'State ', stateBadge(queue.state), ` · mode ${queue.mode} · concurrency ${queue.concurrency}${queue.batch ? ' · batching' : ''}`),
    queue.fastForwardRefused
      ? el('p', { class: 'notice', role: 'status' },
        `Passed runs merge through GitHub's merge API: branch protection refused the fast-forward to the tested commit (${queue.fastForwardRefused.message}). `
        + "Add the mergeq App to the bypass list of the target branch's ruleset to merge exactly the tested commits.")
      : null,
    holdNotice(queue),
    stormNotice(queue),
    freezeControl(queue, repoParam, branch),
    el('div', { class: 'actions' },
      queue.state === 'running' ? el('button', { type: 'button', onclick: setState('paused') }, 'Pause') : el('button', { type: 'button', onclick: setState('running') }, 'Resume'),
      queue.state !== 'draining' ? el('button', { type: 'button', class: 'danger', onclick: setState('draining') }, 'Drain') : null,
      el('a', { class: 'button', href: `#/settings?${new URLSearchParams({ repo: repoParam, branch })}` }, 'Settings')),
    el('h2', {}, `Pull requests (${prs.length})`),
    prs.length ? table('In queue order', ['#', 'Pull request', 'State', 'Priority', 'ETA', 'Reason', 'Verdict'], rows, [3, 5, 6]) : el('p', { class: 'muted' }, 'The queue is empty.'),
    el('h2', {}, `Runs in flight (${runsInFlight.length})`),
    runsInFlight.length ? el('ul', { class: 'runs' }, runsInFlight.map((r) => runCard(r, repoParam, branch))) : el('p', { class: 'muted' }, 'No runs in flight.'),
    endedSection(recentlyEnded, repoParam, branch),
    el('h2', {}, 'Flaky and quarantined tests'),
    el('div', { id: 'flaky-tests' }, el('p', { class: 'muted' }, 'Loading…')));
  loadFlakyTests(repoParam, flakyPage.repo === repoParam ? flakyPage.token : '');
}

const etaCell = (p) => (p.estimatedMergeAt
  ? el('span', { class: 'eta', title: 'estimated merge; in brackets, the range 80% of merges fall in' }, eta(p), p.mergeHold ? ' after the hold' : '')
  : p.estimateReason?.code === 'queue_held' ? 'held' : (p.estimateReason?.message ?? '—'));

// The queue's rows: a PR alone, or the members of a stack together, bottom first, where its first member stands.
function unitsOf(prs) {
  const units = [];
  const stacks = new Map();
  for (const p of prs) {
    if (!p.stack) {
      units.push([p]);
      continue;
    }
    let unit = stacks.get(p.stack.id);
    if (!unit) {
      unit = [];
      stacks.set(p.stack.id, unit);
      units.push(unit);
    }
    unit.push(p);
  }
  for (const unit of stacks.values()) unit.sort((a, b) => a.stack.position - b.stack.position);
  return units;
}

const stackTitle = (stack, count) => `${stack.number !== null ? `Stack #${stack.number}` : stack.kind === 'chain' ? 'Chain' : 'Stack'} · ${count} PRs`;
const distinct = (values) => [...new Set(values.filter((v) => v !== null && v !== undefined && v !== ''))];

/**
 * A stack is one card (docs/stacks.md): its members listed bottom first, tested and landed as one
 * unit, so its position spans theirs and its ETA is its top member's, when the whole unit merges.
 */
function stackRow(unit, repoParam, branch) {
  const top = unit[unit.length - 1];
  const places = unit.map((p) => p.position).filter((n) => n !== null);
  const states = distinct(unit.map((p) => p.state));
  const title = stackTitle(top.stack, unit.length);
  return [
    el('span', { class: 'unit-span' }, places.length ? (places.length > 1 ? `${Math.min(...places)}–${Math.max(...places)}` : String(places[0])) : '—'),
    el('div', { class: 'unit' },
      el('strong', {}, title), el('span', { class: 'muted' }, ' · tested and landed as one'),
      el('ol', { class: 'unit-members', 'aria-label': `${title}, bottom first` },
        unit.map((p) => el('li', {}, el('a', { href: pullHref(repoParam, branch, p.prNumber) }, `#${p.prNumber} ${p.prTitle}`), states.length > 1 ? [' ', stateBadge(p.state)] : null)))),
    states.length === 1 ? stateBadge(states[0]) : el('span', {}, states.map((state) => [stateBadge(state), ' '])),
    top.priorityName,
    etaCell(top),
    distinct(unit.map(whyOf)).join(' · '),
    unit.some((p) => p.verdict) ? el('span', {}, unit.filter((p) => p.verdict).map((p) => el('div', {}, `#${p.prNumber} `, verdictCell(p)))) : '—',
  ];
}

// Why a PR is where it is: what holds it back, what keeps it not ready (the git host's note), else its reason.
function whyOf(p) {
  if (p.mergeHold) return `Held: ${p.mergeHold.message}`;
  if (p.state === 'NOT_READY' && p.readinessNote) return `Not ready: ${p.readinessNote}`;
  return p.reason?.message ?? '';
}

// A storm: many runs ended lately and nothing merged; it names the cause (docs/queue-rules.md, "Storms").
function stormNotice(queue) {
  const s = queue.storm;
  if (!s) return null;
  const paused = queue.stormPause ? ' Only the head of the queue is tested until it ends (stormPause).' : '';
  return el('p', { id: 'storm', class: 'notice', role: 'status' }, el('strong', {}, 'Storm '), `since ${dateTime(s.since)}: ${s.message.replace(/^storm: /, '')}.${paused}`);
}

// A freeze or closed merge windows: the queue tests but merges nothing (docs/queue-policies.md).
function holdNotice(queue) {
  const f = queue.freeze;
  if (f) {
    const until = f.endsAt ? ` until ${dateTime(f.endsAt)}` : ' until unfrozen';
    const allowed = f.allowPullRequests.length ? ` Allowed: ${f.allowPullRequests.map((n) => `#${n}`).join(', ')}.` : '';
    return el('p', { class: 'notice', role: 'status' }, `Frozen${until} by ${f.by}: ${f.reason}. Passed pull requests wait unmerged; urgent ones merge.${allowed}`);
  }
  const w = queue.mergeWindow;
  if (w && !w.open) return el('p', { class: 'notice', role: 'status' }, `Outside its merge windows${w.nextChangeAt ? ` until ${dateTime(w.nextChangeAt)}` : ''}: passed pull requests wait unmerged.`);
  return null;
}

function freezeControl(queue, repoParam, branch) {
  const ref = { repo: repoObject(repoParam), targetBranch: branch };
  if (queue.freeze) {
    return el('div', { class: 'actions' }, el('button', { type: 'button', onclick: () => act(() => api('queue/unfreeze', { method: 'POST', body: ref }), 'Queue unfrozen') }, 'Unfreeze'));
  }
  const reason = el('input', { type: 'text', name: 'reason', placeholder: 'why (shown on the pull requests held)', 'aria-label': 'Freeze reason', required: true });
  const submit = (event) => {
    event.preventDefault();
    return act(() => api('queue/freeze', { method: 'POST', body: { ...ref, reason: reason.value.trim() } }), 'Queue frozen');
  };
  return el('form', { class: 'actions', onsubmit: submit }, reason, el('button', { type: 'submit' }, 'Freeze'));
}

// The PRs that merged or failed in the last 24 hours: a PR that leaves the queue stays in sight here.
function endedSection(ended, repoParam, branch) {
  const rows = ended.map((p) => [
    el('a', { href: pullHref(repoParam, branch, p.prNumber) }, `#${p.prNumber} ${p.prTitle}`),
    stateBadge(p.state), el('time', { datetime: p.endedAt }, time(p.endedAt)), p.reason?.message ?? '', p.verdict ? verdictCell(p) : '—',
  ]);
  return el('section', { 'aria-labelledby': 'ended-title' },
    el('h2', { id: 'ended-title' }, `Merged or failed in the last 24 hours (${ended.length})`),
    ended.length ? table('The latest first', ['Pull request', 'State', 'Ended', 'Reason', 'Verdict'], rows, [2, 4]) : el('p', { class: 'muted' }, 'None yet.'));
}

// The page of the flaky-test list shown, kept across live refreshes of the same repository.
let flakyPage = { repo: null, token: '' };

async function loadFlakyTests(repoParam, token) {
  // The page asked for last wins: a live refresh asks for the same page, never an older one.
  const wanted = { repo: repoParam, token };
  flakyPage = wanted;
  const query = new URLSearchParams({ repo: repoParam });
  if (token) query.set('page', token);
  // A page token can go stale (its page emptied): then the first page.
  const list = await api(`flaky-tests?${query}`).catch(() => (token ? api(`flaky-tests?${new URLSearchParams({ repo: repoParam })}`).catch(() => null) : null));
  const target = document.getElementById('flaky-tests');
  if (!target || !list || flakyPage !== wanted) return;
  const { page } = list;
  const go = (next) => () => loadFlakyTests(repoParam, next);
  const quarantine = (t) => (t.quarantined_at ? `since ${dateTime(t.quarantined_at)}` : 'no');
  target.replaceChildren(list.quarantined_tests.length
    ? el('div', {},
      table(`${page.total_rows} flaky, broken or quarantined · page ${page.page_index + 1} of ${page.total_pages}`, ['Test', 'Status', 'Quarantined', 'Setting', 'Status since'],
        list.quarantined_tests.map((t) => [[t.parent, t.name].filter(Boolean).join(' › ') || t.test_case_id, stateBadge(t.status), quarantine(t), t.quarantine_setting, dateTime(t.status_last_updated_at)]), [3, 4]),
      page.total_pages > 1 ? el('div', { class: 'actions' },
        el('button', { type: 'button', disabled: !page.prev_page_token, onclick: go(page.prev_page_token) }, 'Previous page'),
        el('button', { type: 'button', disabled: !page.next_page_token, onclick: go(page.next_page_token) }, 'Next page')) : null)
    : el('p', { class: 'muted' }, 'No flaky or quarantined tests.'));
}

// The settings the page edits, as updateQueue names them; the server checks every value (the API's rules).
const SETTINGS = [
  { name: 'mode', kind: 'enum', options: ['single', 'parallel'], help: 'single: every PR tested on top of those ahead; parallel: lanes by impacted targets' },
  { name: 'concurrency', kind: 'int', help: 'test runs in flight at once' },
  { name: 'testingTimeoutMinutes', kind: 'int', help: 'a run with no verdict after this many minutes fails' },
  { name: 'batch', kind: 'bool', help: 'test PRs in batches' },
  { name: 'batchingMinSize', kind: 'int', help: 'PRs per batch' },
  { name: 'batchingMaxWaitTimeMinutes', kind: 'int', help: 'longest wait for a batch to fill' },
  { name: 'bisectionConcurrency', kind: 'int', help: 'bisection runs in flight at once' },
  { name: 'flakeRetries', kind: 'int', help: 'reruns of a failing run before its PR fails' },
  { name: 'flakyTestRetries', kind: 'int', help: 'reruns when every failed test is known flaky or quarantined' },
  { name: 'skipRetryOnRealFailure', kind: 'bool', help: 'a failed test not known flaky fails at once' },
  { name: 'testResultsWaitSeconds', kind: 'int', help: 'wait for test results after a failed run' },
  { name: 'canOptimisticallyMerge', kind: 'bool', help: 'a passing run also merges the PRs ahead it contains' },
  { name: 'pendingFailureDepth', kind: 'int', help: 'runs behind a failure kept as flake evidence' },
  { name: 'requiredStatuses', kind: 'list', help: 'checks a run must pass, one a line; empty: those branch protection requires' },
  { name: 'mergeMethod', kind: 'enum', options: ['squash', 'merge_commit', 'rebase'], help: 'how a PR merges' },
  { name: 'directMergeMode', kind: 'enum', options: ['off', 'always'], help: 'merge an up-to-date PR without a test run' },
  { name: 'optimizationMode', kind: 'enum', options: ['off', 'bisection_skip_redundant_tests'], help: 'bisection shortcuts' },
  { name: 'commentsEnabled', kind: 'bool', help: 'comment on PRs' },
  { name: 'commandsEnabled', kind: 'bool', help: 'accept /merge comment commands' },
  { name: 'statusCheckEnabled', kind: 'bool', help: 'report a commit status on PRs' },
  { name: 'createPrsForTestingBranches', kind: 'bool', help: 'a draft PR from every test branch' },
  { name: 'mergeWindows', kind: 'form', control: mergeWindowsControl, help: 'when the queue may merge: weekly windows in a time zone, each some days from a time to a time (24:00: midnight); no window: at any time' },
  { name: 'holdMode', kind: 'enum', options: ['merge', 'start'], help: 'what a freeze or closed merge windows hold back: merges, or new runs too' },
  { name: 'restartBudgets', kind: 'form', control: restartBudgetsControl, help: 'how often a PR is retested for others\' failures (in a storm) or after CI errors before it is held' },
  { name: 'stormRuns', kind: 'int', help: 'a storm: this many runs ended within stormMinutes and nothing merged' },
  { name: 'stormMinutes', kind: 'int', help: 'the window of a storm, in minutes' },
  { name: 'stormPause', kind: 'bool', help: 'during a storm, test only the head of the queue' },
  { name: 'enqueueLabel', kind: 'text', help: 'the label that submits a PR when a user with write access adds it (and cancels it when removed); empty: none' },
  { name: 'autoEnqueue', kind: 'form', control: autoEnqueueControl, help: 'submit PRs without a /merge once they are ready, from every author or only some' },
];

/** The form of each setting that is an object (policy-forms.js), by its node. */
const controls = new WeakMap();

function settingInput(setting, value) {
  const id = `setting-${setting.name}`;
  if (setting.kind === 'form') {
    const control = setting.control(el, value);
    controls.set(control.node, control);
    return control.node;
  }
  const common = { id, name: setting.name, 'aria-describedby': `${id}-help ${id}-error` };
  if (setting.kind === 'bool') return el('input', { ...common, type: 'checkbox', checked: value === true });
  if (setting.kind === 'enum') return el('select', common, setting.options.map((o) => el('option', { value: o, selected: o === value }, o)));
  if (setting.kind === 'list') return el('textarea', { ...common, rows: 3 }, (value ?? []).join('\n'));
  if (setting.kind === 'text') return el('input', { ...common, type: 'text', value: value ?? '' });
  return el('input', { ...common, type: 'number', inputmode: 'numeric', value: String(value) });
}

// A field's value as updateQueue takes it; what does not parse is sent as typed, for the server to name.
function settingValue(setting, input) {
  if (setting.kind === 'form') return controls.get(input).value();
  if (setting.kind === 'bool') return input.checked;
  if (setting.kind === 'list') {
    const lines = input.value.split('\n').map((l) => l.trim()).filter(Boolean);
    return lines.length ? lines : null;
  }
  if (setting.kind === 'int') return /^-?\d+$/.test(input.value.trim()) ? Number(input.value) : input.value;
  if (setting.kind === 'text') return input.value.trim() || null;
  return input.value;
}

const sameSetting = (a, b) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

async function settingsView(params) {
  const repoParam = params.get('repo');
  const branch = params.get('branch');
  const { queue } = await api(`queue?${new URLSearchParams({ repo: repoParam, branch })}`);
  const current = { ...queue, requiredStatuses: queue.requiredStatusesSource === 'queue' ? queue.requiredStatuses : null };
  const inputs = new Map(SETTINGS.map((s) => [s.name, settingInput(s, current[s.name])]));
  const errors = new Map(SETTINGS.map((s) => [s.name, el('p', { class: 'error', id: `setting-${s.name}-error` })]));
  const summary = el('p', { class: 'error', role: 'alert' });
  const back = `#/queue?${new URLSearchParams({ repo: repoParam, branch })}`;
  const form = el('form', { class: 'settings', onsubmit: async (e) => {
    e.preventDefault();
    const changes = {};
    for (const s of SETTINGS) {
      const value = settingValue(s, inputs.get(s.name));
      if (!sameSetting(value, current[s.name])) changes[s.name] = value;
    }
    for (const p of errors.values()) p.textContent = '';
    summary.textContent = '';
    if (Object.keys(changes).length === 0) return void (summary.textContent = 'Nothing changed.');
    try {
      await api('queue/settings', { method: 'POST', body: { repo: repoObject(repoParam), targetBranch: branch, ...changes } });
      live.textContent = `Settings saved: ${Object.keys(changes).join(', ')}`;
      location.hash = back;
    } catch (err) {
      if (err instanceof SignedOut) return signedOut('Your session ended; sign in again.');
      // A problem inside a setting (`mergeWindows.timeZone`) is shown under that setting, with its path.
      const settingOf = (path) => path.split(/[.[]/)[0];
      for (const problem of err.problems ?? []) {
        const inside = problem.path !== settingOf(problem.path) ? `${problem.path}: ` : '';
        errors.get(settingOf(problem.path))?.append(`${inside}${problem.message} `);
      }
      summary.textContent = `Not saved: ${err.message}`;
      const first = err.problems?.[0];
      const input = first && inputs.get(settingOf(first.path));
      if (input && controls.has(input)) controls.get(input).problem(first.path);
      else input?.focus();
    }
  } },
  SETTINGS.map((s) => s.kind === 'form'
    ? el('fieldset', { class: 'setting-form', 'aria-describedby': `setting-${s.name}-help setting-${s.name}-error` },
      el('legend', {}, s.name),
      el('p', { class: 'muted', id: `setting-${s.name}-help` }, s.help),
      inputs.get(s.name),
      errors.get(s.name))
    : el('div', { class: 'setting' },
      el('label', { for: `setting-${s.name}` }, s.name),
      inputs.get(s.name),
      el('span', { class: 'muted', id: `setting-${s.name}-help` }, s.help),
      errors.get(s.name))),
  el('div', { class: 'actions' }, el('button', { type: 'submit' }, 'Save'), el('a', { class: 'button', href: back }, 'Cancel')),
  summary);
  show(`Settings · ${queue.repo.owner}/${queue.repo.name} · ${branch}`,
    el('p', {}, el('a', { href: back }, `← ${queue.repo.owner}/${queue.repo.name} · ${branch}`)),
    el('h1', {}, `Settings of ${queue.repo.owner}/${queue.repo.name} · ${branch}`),
    el('p', { class: 'muted' }, 'Checked as the updateQueue operation of the API checks them; only what you change is sent.'),
    form);
}

const repoObject = (repoParam) => {
  const [host, owner, name] = repoParam.split('/');
  return { host, owner, name };
};

async function pullView(params) {
  const repoParam = params.get('repo');
  const branch = params.get('branch');
  const number = Number(params.get('number'));
  const { pullRequest: pr, runs } = await api(`pull?${new URLSearchParams({ repo: repoParam, branch, number: String(number) })}`);
  const doAction = (action) => () => act(() => api(`pull/${action}`, { method: 'POST', body: { repo: repoParam, branch, number } }), `#${number}: ${action} done`);
  const r = pr.readiness;
  // UNSPECIFIED with a note: the git host could not tell (none configured, PR unknown), so nothing is known to be wrong.
  const unknown = r.gitHubMergeability === 'UNSPECIFIED' && r.note;
  const check = (ok, text) => el('li', {}, unknown ? '? ' : ok ? '✔ ' : '✘ ', text, unknown ? ' (unknown)' : ok ? '' : ' (not yet)');
  show(`#${pr.prNumber} ${pr.prTitle}`,
    el('p', {}, el('a', { href: `#/queue?${new URLSearchParams({ repo: repoParam, branch })}` }, `← ${repoParam.split('/').slice(1).join('/')} · ${branch}`)),
    el('h1', {}, `#${pr.prNumber} ${pr.prTitle}`),
    el('p', {}, stateBadge(pr.state), pr.position ? ` · position ${pr.position}` : '', ` · priority ${pr.priorityName}`,
      pr.estimatedMergeAt ? ` · ETA ${eta(pr)}${pr.mergeHold ? ' (after the hold ends)' : ''}` : pr.estimateReason?.code === 'queue_held' ? ' · ETA: held' : '',
      pr.prAuthor ? ` · by ${pr.prAuthor}` : ''),
    pr.stack ? el('p', { id: 'stack' }, `${stackTitle(pr.stack, pr.stack.size ?? '?')}, layer ${pr.stack.position}`,
      pr.stack.members ? [': ', ...pr.stack.members.flatMap((n, i) => [i ? ', ' : '', n === pr.prNumber ? `#${n}` : el('a', { href: pullHref(repoParam, branch, n) }, `#${n}`)])] : '',
      ' · tested and landed as one') : null,
    pr.state === 'NOT_READY' && r.note ? el('p', { id: 'note', class: 'notice', role: 'status' }, el('strong', {}, 'Not ready: '), r.note) : null,
    pr.mergeHold ? el('p', { id: 'hold', class: 'notice', role: 'status' }, el('strong', {}, 'Held: '), pr.mergeHold.message) : null,
    pr.reason ? el('p', { id: 'reason' }, el('strong', {}, 'Reason: '), pr.reason.message) : null,
    pr.verdict ? verdictSection(pr.verdict) : null,
    pr.isCurrentlySubmittedToQueue ? el('div', { class: 'actions' },
      el('button', { type: 'button', class: 'danger', onclick: doAction('cancel') }, 'Cancel'),
      ['TESTING', 'TESTS_PASSED', 'PENDING_FAILURE'].includes(pr.state) ? el('button', { type: 'button', onclick: doAction('restart') }, 'Restart tests') : null) : null,
    el('h2', {}, 'Readiness'),
    el('ul', { class: 'checklist' },
      check(r.isOpen !== false, 'Open'), check(r.isDraft !== true, 'Not a draft'), check(r.doesBaseBranchMatch, `Based on ${branch}`),
      check(r.gitHubMergeability === 'MERGEABLE', `Mergeable (${r.gitHubMergeability})`),
      r.requiresImpactedTargets ? check(r.hasImpactedTargets, 'Impacted targets uploaded') : null),
    el('h2', {}, 'Timeline'),
    el('ol', { class: 'timeline' }, pr.history.map((t) => el('li', {}, el('time', { datetime: t.at }, dateTime(t.at)), ' ', stateBadge(t.state), t.verdict ? [' ', stateBadge(`verdict-${t.verdict.code}`, t.verdict.code)] : null, el('div', {}, t.reason.message)))),
    el('h2', {}, `Runs (${runs.length})`),
    runs.length ? el('ul', { class: 'runs' }, runs.map((run) => runCard(run, repoParam, branch, [number]))) : el('p', { class: 'muted' }, 'No runs yet.'));
}

// The verdict with what a person acts on: the failing tests and runs of a culprit, whom a bystander paid for.
function verdictSection(v) {
  const e = v.evidence;
  const runLink = (r) => (r.url ? el('a', { href: r.url, rel: 'noreferrer' }, `${r.kind} run ${r.prNumbers.map((n) => `#${n}`).join('+')}`) : `${r.kind} run`);
  const details = [];
  if (v.code === 'culprit') {
    details.push(...e.failedTests.map((t) => el('li', {}, el('code', {}, t.name), t.firstFailureLine ? ` — ${t.firstFailureLine}` : '')));
    details.push(el('li', {}, `Isolated by ${e.isolation.method.replace('_', ' ')}: ${e.isolation.step}`));
    for (const r of e.isolation.bisectionRuns) details.push(el('li', {}, runLink(r), ` (${r.status})`));
  } else if (v.code === 'bystander') {
    details.push(el('li', {}, `Culprit: ${e.culprits.map((c) => `#${c.prNumber}`).join(', ') || 'no longer known'}; it cost ${e.cost.runs} run(s), ${e.cost.minutes} CI minute(s)`));
  } else if (v.code === 'flaky') {
    details.push(...e.tests.map((t) => el('li', {}, el('code', {}, t.name), t.knownFlaky ? ' (known flaky)' : '')));
  }
  return el('section', { id: 'verdict', 'aria-labelledby': 'verdict-title' },
    el('h2', { id: 'verdict-title' }, 'Verdict ', stateBadge(`verdict-${v.code}`, v.code)),
    el('p', {}, v.message),
    details.length ? el('ul', {}, details) : null);
}

async function act(fn, done) {
  try {
    await fn();
    live.textContent = done;
    await refresh(true);
  } catch (err) {
    if (err instanceof SignedOut) return signedOut('Your session ended; sign in again.');
    live.textContent = `Failed: ${err.message}`;
  }
}

async function render(focus) {
  const [path, query] = location.hash.replace(/^#/, '').split('?');
  const params = new URLSearchParams(query ?? '');
  try {
    if (path === '/queue') await queueView(params);
    else if (path === '/pull') await pullView(params);
    else if (path === '/settings') await settingsView(params);
    else await queuesView();
    if (focus) main.focus();
  } catch (err) {
    if (err instanceof SignedOut) return signedOut();
    show('Error', el('h1', {}, 'Something went wrong'), el('p', { class: 'error', role: 'alert' }, err.message), el('p', {}, el('a', { href: '#/' }, 'Back to the queues')));
  }
}

function route() {
  rendering = rendering.then(() => render(true));
  return rendering;
}

// `afterAction`: the page's own action changed the queue, so it is redrawn even from inside a form.
function refresh(afterAction = false) {
  // A form being filled in is not redrawn under the person typing: the settings page never, the
  // freeze reason once the person has left its form.
  if (!csrfToken || location.hash.startsWith('#/settings')) return rendering;
  const form = document.activeElement?.closest('main form');
  if (form && !afterAction) return redrawOnLeaving(form);
  rendering = rendering.then(async () => {
    liveRedraw = !afterAction;
    try {
      await render(false);
    } finally {
      liveRedraw = false;
    }
    live.textContent = `Updated ${new Date().toLocaleTimeString()}`;
  });
  return rendering;
}

function redrawOnLeaving(form) {
  if (form.dataset.redrawOnLeaving) return rendering;
  form.dataset.redrawOnLeaving = 'yes';
  form.addEventListener('focusout', function left() {
    // focusout comes before the next element has focus: look once it has.
    window.setTimeout(() => {
      if (form.contains(document.activeElement)) return;
      form.removeEventListener('focusout', left);
      void refresh();
    });
  });
  return rendering;
}

document.getElementById('sign-out').addEventListener('click', async () => {
  try {
    await api('session', { method: 'DELETE' });
  } finally {
    signedOut('Signed out.');
  }
});
window.addEventListener('hashchange', () => {
  if (csrfToken) route();
});

api('session').then((session) => {
  signedIn(session);
  route();
}).catch(() => signInView());
