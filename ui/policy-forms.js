// Forms for the two settings that are objects: merge windows (days, hours, time zone) and
// auto-enqueue (authors, readiness). Each control gives the value as updateQueue takes it; the server
// checks it as the API does, and a problem it names by path (`mergeWindows.windows.0.end`) is
// marked on the field that holds it.

const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const WEEKDAYS = DAYS.slice(0, 5);

/** A field that can carry a problem: its path, and aria-invalid while the problem stands. */
function marked(control, path) {
  control.dataset.path = path;
  return control;
}

function markProblem(root, path) {
  for (const node of root.querySelectorAll('[aria-invalid]')) node.removeAttribute('aria-invalid');
  const field = [...root.querySelectorAll('[data-path]')].find((n) => n.dataset.path === path);
  if (!field) return false;
  field.setAttribute('aria-invalid', 'true');
  field.focus();
  return true;
}

/** `mergeWindows`: a time zone and weekly windows, each some days from a time to a time; no window: merge at any time. */
export function mergeWindowsControl(el, value) {
  const id = 'setting-mergeWindows';
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  const timeZone = el('input', { id: `${id}-timeZone`, type: 'text', list: `${id}-zones`, autocomplete: 'off', spellcheck: 'false', value: value?.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone });
  const list = el('ol', { class: 'windows', 'aria-label': 'Merge windows' });
  const none = el('p', { class: 'muted' }, 'No window: the queue merges at any time.');
  const renumber = () => {
    const rows = [...list.children];
    rows.forEach((row, i) => {
      row.querySelector('legend').textContent = `Window ${i + 1}`;
      row.querySelector('.remove').textContent = `Remove window ${i + 1}`;
      marked(row.querySelector('.days'), `mergeWindows.windows.${i}.days`);
      marked(row.querySelector('.start'), `mergeWindows.windows.${i}.start`);
      marked(row.querySelector('.end'), `mergeWindows.windows.${i}.end`);
    });
    none.hidden = rows.length > 0;
    timeZone.required = rows.length > 0;
  };
  const addWindow = (w) => {
    const days = el('div', { class: 'days', tabindex: '-1', role: 'group', 'aria-label': 'Days' },
      DAYS.map((d) => el('label', { class: 'day' }, el('input', { type: 'checkbox', value: d, checked: w.days.includes(d) }), d)));
    const time = (cls, label, v) => el('label', {}, `${label} `, el('input', { type: 'text', class: cls, inputmode: 'numeric', placeholder: 'HH:MM', size: 5, value: v, autocomplete: 'off' }));
    const row = el('li', { class: 'window' },
      el('fieldset', {},
        el('legend', {}, 'Window'),
        days,
        el('div', { class: 'hours' }, time('start', 'from', w.start), time('end', 'to', w.end)),
        el('button', { type: 'button', class: 'remove', onclick: () => { row.remove(); renumber(); } }, 'Remove window')));
    list.append(row);
    renumber();
  };
  for (const w of value?.windows ?? []) addWindow(w);
  renumber();
  const node = el('div', { class: 'policy', id },
    el('label', { for: `${id}-timeZone` }, 'Time zone '),
    marked(timeZone, 'mergeWindows.timeZone'),
    el('datalist', { id: `${id}-zones` }, zones.map((z) => el('option', { value: z }))),
    none,
    list,
    el('button', { type: 'button', class: 'add', onclick: () => { addWindow({ days: WEEKDAYS, start: '09:00', end: '17:00' }); list.lastElementChild.querySelector('input').focus(); } }, 'Add a window'));
  return {
    node,
    value() {
      const rows = [...list.children];
      if (rows.length === 0) return null;
      return {
        timeZone: timeZone.value.trim(),
        windows: rows.map((row) => ({
          days: [...row.querySelectorAll('.days input:checked')].map((c) => c.value),
          start: row.querySelector('.start').value.trim(),
          end: row.querySelector('.end').value.trim(),
        })),
      };
    },
    problem: (path) => markProblem(node, path) || (timeZone.focus(), false),
  };
}

/** `autoEnqueue`: PRs submit themselves once ready, from every author or only some. */
export function autoEnqueueControl(el, value) {
  const id = 'setting-autoEnqueue';
  const enabled = el('input', { id: `${id}-enabled`, type: 'checkbox', checked: value?.enabled === true });
  const authors = el('textarea', { id: `${id}-authors`, rows: 2, spellcheck: 'false', 'aria-describedby': `${id}-authors-help` }, (value?.authors ?? []).join('\n'));
  const node = el('div', { class: 'policy', id },
    el('div', { class: 'check' }, marked(enabled, 'autoEnqueue.enabled'), el('label', { for: `${id}-enabled` }, 'Submit PRs by themselves once ready')),
    el('p', { class: 'muted' }, 'Ready: approved as the branch requires, its own checks green, open, not a draft (the same readiness a /merge waits for).'),
    el('label', { for: `${id}-authors` }, 'Only PRs opened by'),
    marked(authors, 'autoEnqueue.authors'),
    el('p', { class: 'muted', id: `${id}-authors-help` }, 'one login a line, e.g. renovate[bot]; empty: every author'));
  return {
    node,
    value() {
      const lines = authors.value.split('\n').map((l) => l.trim()).filter(Boolean);
      return { enabled: enabled.checked, authors: lines.length ? lines : null };
    },
    problem: (path) => markProblem(node, path) || (enabled.focus(), false),
  };
}

/** `restartBudgets`: two numbers, not JSON to type. */
export function restartBudgetsControl(el, value) {
  const id = 'setting-restartBudgets';
  const field = (key, label, help) => {
    const input = el('input', { id: `${id}-${key}`, type: 'number', value: String(value?.[key] ?? ''), 'aria-describedby': `${id}-${key}-help` });
    return { input, nodes: [el('label', { for: input.id }, label), marked(input, `restartBudgets.${key}`), el('p', { class: 'muted', id: `${id}-${key}-help` }, help)] };
  };
  const bystander = field('bystander', 'As a bystander', 'restarts because another PR broke its run, counted while the queue is in a storm, before the PR is held');
  const infrastructure = field('infrastructure', 'After a CI error', 'retries of a run that ended in a CI error before the PR is held');
  const node = el('div', { class: 'policy', id }, ...bystander.nodes, ...infrastructure.nodes);
  const number = (input) => (/^\d+$/.test(input.value.trim()) ? Number(input.value) : input.value);
  return {
    node,
    value: () => ({ bystander: number(bystander.input), infrastructure: number(infrastructure.input) }),
    problem: (path) => markProblem(node, path) || (bystander.input.focus(), false),
  };
}
