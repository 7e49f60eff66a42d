import type { Config } from '../../config/settings.js';

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

/** What one check found. `detail` is one line; `hint` says what to do about a warning or a failure. */
export interface CheckResult {
  readonly id: string;
  readonly title: string;
  readonly status: CheckStatus;
  readonly detail: string;
  readonly hint?: string;
}

/** The environment file doctor read (the one systemd hands the daemon), as found. */
export interface EnvFileState {
  readonly path: string;
  /** absent: no file; unreadable: exists but could not be read (code in `error`). */
  readonly status: 'absent' | 'read' | 'unreadable';
  readonly error?: string;
  /** Line numbers (1-based) that are neither blank, a comment nor KEY=value. */
  readonly ignoredLines: readonly number[];
  readonly mode: number | null;
}

/** Everything a check may look at; built once by the command, so each check stays a plain function. */
export interface DoctorContext {
  /** The environment the daemon would see: the env file beneath the caller's environment. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The loaded configuration, or null when it is invalid (then `configError` says why). */
  readonly config: Config | null;
  readonly configError: string | null;
  /** The defaults file the configuration was read from, when one was. */
  readonly configFile: string | null;
  readonly configDir: string;
  readonly envFile: EnvFileState;
  readonly nginxFile: string;
  readonly unitFile: string;
  /** The user the daemon runs as (--service-user); null: the unit's User=. */
  readonly serviceUser: string | null;
  /** nginx to run `nginx -t` with; null: look for it on PATH and in the sbin directories. */
  readonly nginxBin: string | null;
  readonly nodeVersion: string;
  readonly now: Date;
  /** On PostgreSQL: the schemas of both stores and the version this release expects of each (the database checks). */
  readonly databaseSchemas?: readonly { readonly store: string; readonly schema: string; readonly latest: number }[];
  /** With SERVICE_NATS_URL on PostgreSQL: the cluster's registry as this machine sees it (the cluster checks). */
  readonly clusterNodes?: () => Promise<ClusterRead>;
  /** Free-space floors of the data directory's filesystem; absent: the built-in ones (tests raise them to see a real directory warn or fail). */
  readonly freeSpace?: { readonly warnBytes: number; readonly failBytes: number };
}

/** One node of the registry (meet_engine.nodes), judged alive by this machine's clock and its session lock. */
export interface ClusterNodeSeen {
  readonly nodeId: string;
  readonly address: string;
  readonly alive: boolean;
  readonly lastBeatAt: Date;
}

/** The registry's nodes; no-registry: its table is not there yet; unavailable: the database could not be read. */
export type ClusterRead = readonly ClusterNodeSeen[] | 'no-registry' | { readonly unavailable: string };

export interface DoctorCheck {
  readonly id: string;
  readonly title: string;
  run(ctx: DoctorContext): CheckResult | Promise<CheckResult>;
}

export type Outcome = Omit<CheckResult, 'id' | 'title'>;

export const ok = (detail: string): Outcome => ({ status: 'ok', detail });
export const warn = (detail: string, hint?: string): Outcome => ({ status: 'warn', detail, ...(hint ? { hint } : {}) });
export const fail = (detail: string, hint?: string): Outcome => ({ status: 'fail', detail, ...(hint ? { hint } : {}) });
export const skip = (detail: string): Outcome => ({ status: 'skip', detail });

/** A check from its id, title and a function returning the outcome. */
export function check(id: string, title: string, run: (ctx: DoctorContext) => Outcome | Promise<Outcome>): DoctorCheck {
  return {
    id,
    title,
    async run(ctx) {
      return { id, title, ...(await run(ctx)) };
    },
  };
}

/** Checks that need the configuration say so instead of failing twice for one cause. */
export const configMissing = skip('the configuration is invalid (see above)');

/** An errno code, or the message of anything else. */
export function reason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
  return err instanceof Error ? err.message : String(err);
}
