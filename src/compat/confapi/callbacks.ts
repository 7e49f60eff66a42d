import { AsyncLocalStorage } from 'node:async_hooks';
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { SignJWT } from 'jose';
import { analyticsAuthorization, analyticsUserAgent } from './analytics.js';
import type { AsyncCompatStore } from './async-store.js';
import type { CallbackJob, CompatMeeting, NewCallbackJob } from './model.js';
import { TargetGuard, TargetRefused, type ResolvedTarget } from './target-guard.js';

/** Attempt times after the first failure: immediately, then 30 s, 1, 2 and 5 minutes. */
export const defaultRetryDelaysMs: readonly number[] = [0, 30_000, 60_000, 120_000, 300_000];

/** Connect plus answer, per attempt. */
export const defaultCallbackTimeoutMs = 5_000;

export interface CallbackLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface CallbackOptions {
  readonly retryDelaysMs?: readonly number[];
  readonly timeoutMs?: number;
  readonly now?: () => number;
}

/** The secret a tenant signs with now; null when the tenant is gone. */
export type SecretOf = (tenantId: string) => string | null;

/** The metadata names (lowercased, without `meta_`) a recording-ready URL may come under, by priority. */
export const recordingReadyKeys = [
  'confapi-recording-ready-url',
  'bbb-recording-ready-url',
  'bn-recording-ready-url',
  'canvas-recording-ready-url',
];

export function metadataValue(meeting: CompatMeeting, key: string): string | null {
  const found = meeting.metadata.find(([name]) => name === key);
  return found && found[1] !== '' ? found[1] : null;
}

/**
 * `url` with `meetingID` and `recordingmarks=false` added to its query. The query already
 * there is kept byte for byte (re-serialising it could change how a receiver reads it).
 */
export function endCallbackUrl(url: string, meetingId: string): string {
  const parsed = new URL(url);
  const extra = new URLSearchParams([
    ['meetingID', meetingId],
    ['recordingmarks', 'false'],
  ]).toString();
  const search = parsed.search === '' || parsed.search === '?' ? '?' : `${parsed.search}&`;
  return `${parsed.origin}${parsed.pathname}${search}${extra}`;
}

/** The form body of a recording-ready callback: `signed_parameters` = HS256 JWT {meeting_id, record_id}. */
export async function recordingReadyBody(secret: string, meetingId: string, recordId: string): Promise<string> {
  const jwt = await new SignJWT({ meeting_id: meetingId, record_id: recordId })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(new TextEncoder().encode(secret));
  return new URLSearchParams([['signed_parameters', jwt]]).toString();
}

/**
 * One attempt: a request pinned to the checked address, no redirect followed (a 3xx is a
 * failure), a short timeout, the answer's body drained and ignored. Resolves to the status.
 */
function send(
  job: CallbackJob,
  url: URL,
  target: ResolvedTarget,
  extra: Record<string, string>,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<number> {
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) {
      (callback as unknown as (err: null, list: { address: string; family: number }[]) => void)(null, [
        { address: target.address, family: target.family },
      ]);
    } else {
      callback(null, target.address, target.family);
    }
  };
  const headers: Record<string, string> = { 'user-agent': 'meeting-service confapi callback', ...extra };
  if (job.body !== null) {
    headers['content-type'] = job.contentType ?? 'application/x-www-form-urlencoded';
    headers['content-length'] = String(Buffer.byteLength(job.body));
  }
  const options: RequestOptions = { method: job.method, headers, lookup: pinned, timeout: timeoutMs, signal };
  const requester = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    const req = requester(url, options, (res: IncomingMessage) => {
      res.resume();
      res.on('end', () => {
        clearTimeout(timer);
        resolve(res.statusCode ?? 0);
      });
      res.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(job.body ?? undefined);
  });
}

/** A job that cannot be signed: its tenant was removed before it was sent. Not retried. */
class Unsignable extends Error {}

/**
 * Headers a kind adds when sent. The analytics callback's Bearer token is made here, at send
 * time, from the tenant's current secret (see analytics.ts): it is never stored nor logged.
 */
async function headersFor(job: CallbackJob, secretOf: SecretOf, now: number): Promise<Record<string, string>> {
  if (job.kind !== 'analytics') return {};
  const secret = secretOf(job.tenantId);
  if (secret === null) throw new Unsignable(`tenant ${job.tenantId} has no secret any more`);
  return { 'user-agent': analyticsUserAgent, authorization: await analyticsAuthorization(secret, now) };
}

/** How many due jobs one claim takes. */
const claimBatch = 50;

/** After an enqueue, when the queue looks again for a job whose transaction had not committed yet. */
const lookAgainMs = [50, 500, 5000];

/**
 * The outbound callback queue. Jobs are written to the store before the API call that
 * caused them answers, sent from a timer (never inside the API call), retried on failure by
 * `retryDelaysMs`, and picked up again after a restart. A target the guard refuses is not
 * retried: its address will not change into an allowed one by waiting. Due jobs are claimed
 * (`claimDueCallbacks`, a lease), never just read: several senders on one store (nodes of a
 * cluster) never send one job twice, and a job whose sender died is due again when its lease ends.
 */
export class CallbackQueue {
  private timer: NodeJS.Timeout | null = null;
  private timerAt = 0;
  private running = false;
  private again = false;
  private readonly inFlight = new Map<number, Promise<void>>();
  private readonly abort = new AbortController();
  private stopped = false;
  private readonly delays: readonly number[];
  private readonly timeoutMs: number;
  private readonly leaseMs: number;
  private readonly now: () => number;
  /**
   * The context the queue was made in (no transaction): its claims run there. A timer set by an
   * enqueue inside a transaction would otherwise run its claim inside that transaction, where it
   * sees the job before the commit and could send the callback of a write that rolls back.
   */
  private readonly outside = AsyncLocalStorage.snapshot();

  constructor(
    private readonly store: Pick<
      AsyncCompatStore,
      'insertCallback' | 'updateCallback' | 'pendingCallbacks' | 'claimDueCallbacks'
    >,
    private readonly guard: TargetGuard,
    private readonly log: CallbackLog,
    options: CallbackOptions = {},
    private readonly secretOf: SecretOf = () => null,
  ) {
    this.delays = options.retryDelaysMs ?? defaultRetryDelaysMs;
    this.timeoutMs = options.timeoutMs ?? defaultCallbackTimeoutMs;
    // An attempt (the target's address, then the request within its timeout) ends well within its lease.
    this.leaseMs = this.timeoutMs * 2 + 30_000;
    this.now = options.now ?? Date.now;
  }

  /** Schedules the jobs left pending by a previous run. */
  start(): void {
    this.wake(0);
  }

  async enqueue(job: Omit<NewCallbackJob, 'nextAt' | 'createdAt'>): Promise<CallbackJob> {
    const now = this.now();
    const stored = await this.store.insertCallback({ ...job, nextAt: now, createdAt: now });
    // Inside a transaction the job is seen only once it committed. On SQLite the claim waits its
    // turn behind the transaction; on PostgreSQL it runs at once on another connection and finds
    // nothing, and the transaction may be the engine's, committed later (the meeting API's is a
    // savepoint in it). So the queue looks again a little later, whatever committed meanwhile.
    this.wake(0);
    for (const delayMs of lookAgainMs) setTimeout(() => this.wake(0), delayMs).unref();
    return stored;
  }

  /** Resolves when nothing is in flight (for tests and shutdown). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight.values()]);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.abort.abort();
    await Promise.allSettled([...this.inFlight.values()]);
  }

  /** A claim in `delayMs` at the latest (an earlier one already planned stays). */
  private wake(delayMs: number): void {
    if (this.stopped) return;
    const at = this.now() + Math.max(0, delayMs);
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.outside(() => void this.runDue()), Math.max(0, delayMs));
    this.timer.unref();
  }

  private async runDue(): Promise<void> {
    this.timer = null;
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      const now = this.now();
      for (const job of await this.store.claimDueCallbacks(now, now + this.leaseMs, claimBatch)) {
        if (this.stopped || this.inFlight.has(job.id)) continue;
        const attempt = this.attempt(job)
          .catch((err: unknown) => this.log.warn({ callback: job.id, err }, 'callback not recorded; retried later'))
          .finally(() => {
            this.inFlight.delete(job.id);
            this.wake(0);
          });
        this.inFlight.set(job.id, attempt);
      }
      const pending = (await this.store.pendingCallbacks()).filter((job) => !this.inFlight.has(job.id));
      if (pending.length > 0) this.wake(Math.min(...pending.map((job) => job.nextAt)) - this.now());
    } catch (err) {
      // The store is out of reach: asked again shortly.
      if (!this.stopped) this.log.warn({ err }, 'callback queue could not claim its jobs; trying again');
      this.wake(1000);
    } finally {
      this.running = false;
      if (this.again) {
        this.again = false;
        this.wake(0);
      }
    }
  }

  private async attempt(job: CallbackJob): Promise<void> {
    const attempts = job.attempts + 1;
    const where = { callback: job.id, kind: job.kind, meeting: job.internalId, attempt: attempts };
    let url: URL;
    try {
      url = new URL(job.url);
      const target = await this.guard.resolve(url);
      const extra = await headersFor(job, this.secretOf, this.now());
      const status = await send(job, url, target, extra, this.timeoutMs, this.abort.signal);
      if (status >= 200 && status < 300) {
        await this.finish(job, attempts, 'delivered', null);
        this.log.info({ ...where, status }, 'callback delivered');
        return;
      }
      await this.retry(job, attempts, `answered HTTP ${status}`);
    } catch (err) {
      if (err instanceof TargetRefused || err instanceof TypeError) {
        await this.finish(job, attempts, 'refused', err.message);
        this.log.warn({ ...where, reason: err.message }, 'callback refused: target not allowed');
        return;
      }
      if (err instanceof Unsignable) {
        await this.finish(job, attempts, 'gave_up', err.message);
        this.log.warn({ ...where, reason: err.message }, 'callback not sent: cannot be signed');
        return;
      }
      // Stopping cut the attempt short: its lease is given back, so the next start sends it at once.
      if (this.stopped) return this.store.updateCallback({ ...job, nextAt: this.now() });
      await this.retry(job, attempts, (err as Error).message);
    }
  }

  private async retry(job: CallbackJob, attempts: number, reason: string): Promise<void> {
    if (this.stopped) return this.store.updateCallback({ ...job, nextAt: this.now() });
    const delay = this.delays[attempts];
    if (delay === undefined) {
      await this.finish(job, attempts, 'gave_up', reason);
      this.log.warn({ callback: job.id, kind: job.kind, attempts, reason }, 'callback failed; giving up');
      return;
    }
    await this.store.updateCallback({ ...job, attempts, nextAt: this.now() + delay, lastError: reason });
    this.log.warn(
      { callback: job.id, kind: job.kind, attempt: attempts, retryInMs: delay, reason },
      'callback failed; will retry',
    );
  }

  private finish(
    job: CallbackJob,
    attempts: number,
    outcome: NonNullable<CallbackJob['outcome']>,
    error: string | null,
  ): Promise<void> {
    return this.store.updateCallback({ ...job, attempts, doneAt: this.now(), outcome, lastError: error });
  }
}
