/**
 * What went wrong talking to GitHub's API, named as the fault a person can fix: nothing listening
 * there, a name that does not resolve, something that is not GitHub, the App's credentials, or this
 * machine's clock. `err` is a fetch() failure, an Octokit RequestError, or an `answeredWith` error.
 */

/** GitHub's JWTs allow 60 s of drift (the App's JWT is issued 30 s in the past). */
const SKEW_TOLERANCE_MS = 60_000;

interface HttpAnswer {
  status: number;
  headers: Record<string, string | undefined>;
  body: string;
}

/** An error for an HTTP answer that fetch() returned, carrying what gitHubFault reads. */
export function answeredWith(status: number, headers: Headers, body: string): Error {
  const plain: Record<string, string> = {};
  headers.forEach((value, name) => (plain[name] = value));
  return Object.assign(new Error(`${status} ${body.slice(0, 200)}`), { status, response: { headers: plain, data: body } });
}

/** The system's error code somewhere in the chain of causes (undici wraps it as fetch failed → cause). */
function systemCode(err: unknown): string | undefined {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e.code === 'UND_ERR_CONNECT_TIMEOUT') return 'ETIMEDOUT';
    if (typeof e.code === 'string' && /^[A-Z_]+$/.test(e.code) && !e.code.startsWith('ERR_') && !e.code.startsWith('UND_')) return e.code;
  }
  return undefined;
}

function answerOf(err: unknown): HttpAnswer | null {
  const { status, response } = (err ?? {}) as { status?: unknown; response?: { headers?: Record<string, string | undefined>; data?: unknown } };
  if (typeof status !== 'number' || !response) return null;
  const body = typeof response.data === 'string' ? response.data : JSON.stringify(response.data ?? '');
  return { status, headers: response.headers ?? {}, body };
}

function messageOf(answer: HttpAnswer): string {
  try {
    const parsed = JSON.parse(answer.body) as { message?: unknown };
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    // Not JSON: the first characters say enough.
  }
  return answer.body.replace(/\s+/g, ' ').slice(0, 120);
}

export function gitHubFault(err: unknown, apiUrl: string, nowMs: number = Date.now()): string {
  const { host, hostname } = new URL(apiUrl);
  const urlFix = `GITHUB_API_URL must be https://api.github.com (unset) or https://<your GitHub Enterprise Server>/api/v3`;
  const code = systemCode(err);
  if (code === 'ECONNREFUSED') return `nothing answers at ${host} (connection refused): ${urlFix}, and it must be reachable from this machine (firewall, proxy)`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `the name ${hostname} does not resolve (DNS ${code}): check the spelling of ${apiUrl} (${urlFix}) and this machine's DNS`;
  if (code === 'ETIMEDOUT' || code === 'ECONNRESET' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH') {
    return `${host} cannot be reached (${code}): check this machine's network, firewall and proxy (HTTPS_PROXY) towards ${host}`;
  }
  if (code && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) return `the TLS certificate of ${host} is not trusted (${code}): give Node.js your CA with NODE_EXTRA_CA_CERTS=/path/to/ca.pem`;
  const answer = answerOf(err);
  if (!answer) return `GitHub at ${host} could not be asked: ${err instanceof Error ? err.message : String(err)}`;
  if (!answer.headers['x-github-request-id'] && !answer.headers['x-github-media-type']) {
    return `${apiUrl} answered ${answer.status} but is not GitHub's API (no x-github-request-id header): ${urlFix}`;
  }
  const message = messageOf(answer);
  const serverDate = Date.parse(answer.headers.date ?? '');
  const skewMs = Number.isNaN(serverDate) ? 0 : nowMs - serverDate;
  if ((answer.status === 401 && /'(iat|exp)'|expiration time|issued at/i.test(message)) || Math.abs(skewMs) > SKEW_TOLERANCE_MS) {
    const by = Number.isNaN(serverDate) ? '' : ` is ${Math.round(Math.abs(skewMs) / 1000)} s ${skewMs > 0 ? 'ahead of' : 'behind'} GitHub's`;
    return `this machine's clock${by}, so GitHub refuses the App's tokens (${answer.status} ${message}): set the clock right (NTP: timedatectl set-ntp true)`;
  }
  if (answer.status === 401 || (answer.status === 404 && /integration not found/i.test(message))) {
    return `GitHub refused the App's credentials (${answer.status} ${message}): APP_ID and PRIVATE_KEY must be the App's (its settings page, "Private keys"); mergeq setup github stores both`;
  }
  return `GitHub answered ${answer.status}: ${message}`;
}
