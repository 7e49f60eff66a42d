import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AsyncDefer } from '../engine/async-group-commit.js';
import type { WaitingCounter } from '../engine/waiting/waiting-room-types.js';
import type { RequestRecorder } from '../platform/access-log.js';
import { daysLeft } from '../licence/licence-status.js';
import type { Licence } from '../licence/server-key.js';
import { RequestMetrics } from './request-metrics.js';

/**
 * The daemon's Prometheus metrics (SERVICE_METRICS_ADDR), one registry per daemon (no global
 * one: two daemons in one test process must not count into each other). The engine knows
 * nothing of prom-client: it tells its knocks and decisions through the WaitingCounter port and
 * returns how many writes a group commit wrote; gauges read the services when Prometheus scrapes.
 */

/** What the gauges read at a scrape; attached once the services and listeners exist. */
export interface MetricsSources {
  waitingRequests(): number;
  liveConnections(): number;
  meetingsRunning(): number;
  /** The SFU the daemon uses: absent with the mesh. */
  readonly janus?: { up(): boolean; restarts(): number };
  /** A node of a cluster (SERVICE_NATS_URL): absent on one node. */
  readonly cluster?: ClusterGauges;
  now(): Date;
}

/** What a clustered daemon's metrics read of its node (daemon/cluster.ts). */
export interface ClusterGauges {
  readonly nodeId: string;
  /** The rooms whose lease this node holds. */
  roomsOwned(): number;
  /** The nodes alive in this node's view, itself included, as of its last look (every beat). */
  nodesAlive(): number;
  natsConnected(): boolean;
}

export type GroupName = 'knocks' | 'stats';

/** Group commits are one fsync each: sub-millisecond on a good disk, tens of ms on a slow one. */
const commitBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

export class ServiceMetrics {
  readonly registry = new Registry();
  readonly requests = new RequestMetrics();
  private sources: MetricsSources | null = null;
  private readonly licences = new Map<string, Licence>();
  private readonly commits: Histogram<'group'>;
  private readonly knocks: Counter;
  private readonly admissions: Counter;
  private readonly refusals: Counter<'barred'>;
  private readonly closed: Counter<'reason'>;

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    for (const metric of this.requests.metrics()) this.registry.registerMetric(metric);
    const read = (metric: Gauge, value: (sources: MetricsSources) => number) => {
      if (this.sources) metric.set(value(this.sources));
    };
    new Gauge({
      name: 'meet_waiting_requests',
      help: 'People waiting in waiting rooms now',
      registers,
      collect() {
        read(this, (s) => s.waitingRequests());
      },
    });
    new Gauge({
      name: 'meet_live_connections',
      help: 'Open live connections (one per page in a meeting)',
      registers,
      collect() {
        read(this, (s) => s.liveConnections());
      },
    });
    new Gauge({
      name: 'meet_meetings_running',
      help: 'Meetings in progress',
      registers,
      collect() {
        read(this, (s) => s.meetingsRunning());
      },
    });
    this.knocks = new Counter({
      name: 'meet_waiting_knocks_total',
      help: 'Knocks written (a new waiting request)',
      registers,
    });
    this.admissions = new Counter({
      name: 'meet_waiting_admissions_total',
      help: 'Waiting requests admitted',
      registers,
    });
    this.refusals = new Counter({
      name: 'meet_waiting_refusals_total',
      help: 'Waiting requests refused by a moderator (barred="true": barred for the meeting)',
      labelNames: ['barred'],
      registers,
    });
    this.closed = new Counter({
      name: 'meet_waiting_closed_total',
      help: 'Waiting requests that ended unanswered: expired, withdrawn or window_closed',
      labelNames: ['reason'],
      registers,
    });
    this.commits = new Histogram({
      name: 'meet_group_commit_duration_seconds',
      help: 'How long a group commit took (one transaction for the writes of a turn: knocks, or media statistics)',
      labelNames: ['group'],
      buckets: commitBuckets,
      registers,
    });
    const licences = this.licences;
    const sources = () => this.sources;
    new Gauge({
      name: 'meet_licence_days_left',
      help: 'Whole days until the licence of a module the daemon runs ends (negative once it ended)',
      labelNames: ['module'],
      registers,
      collect() {
        const now = sources()?.now();
        this.reset();
        if (now) for (const [module, licence] of licences) this.set({ module }, daysLeft(licence, now));
      },
    });
  }

  attach(sources: MetricsSources): void {
    this.sources = sources;
    if (sources.cluster) this.clusterGauges(sources.cluster);
    const janus = sources.janus;
    // Only with Janus: a 0 with the mesh would page whoever alerts on it.
    if (!janus) return;
    const registers = [this.registry];
    new Gauge({
      name: 'meet_janus_up',
      help: 'Whether the Janus SFU answers (1) or not (0); absent when meetings use the mesh',
      registers,
      collect() {
        this.set(janus.up() ? 1 : 0);
      },
    });
    new Counter({
      name: 'meet_janus_restarts_total',
      help: "Restarts of the daemon's own Janus after it exited (0 with an external Janus)",
      registers,
      collect() {
        this.reset();
        this.inc(janus.restarts());
      },
    });
  }

  /**
   * A clustered node's metrics. Its id is an info metric, meet_node_info{node="…"} 1, not a label
   * on every series: each node is its own scrape target, so Prometheus's `instance` label already
   * tells the nodes' series apart, and a node label copied onto each series would only repeat it
   * (Prometheus's advice on target labels). A query joins the id in where it is wanted:
   * `meet_waiting_requests * on(instance) group_left(node) meet_node_info`. Only with a cluster: a
   * single node's scrape stays as it was.
   */
  private clusterGauges(cluster: ClusterGauges): void {
    const registers = [this.registry];
    new Gauge({
      name: 'meet_node_info',
      help: 'This node of a cluster (SERVICE_NODE_ID) as the node label, always 1: join it on instance',
      labelNames: ['node'],
      registers,
    }).set({ node: cluster.nodeId }, 1);
    new Gauge({
      name: 'meet_cluster_rooms_owned',
      help: 'Rooms whose lease this node holds (it serves their live state)',
      registers,
      collect() {
        this.set(cluster.roomsOwned());
      },
    });
    new Gauge({
      name: 'meet_cluster_nodes_alive',
      help: "Nodes alive in this node's view of the registry, itself included (as of its last beat)",
      registers,
      collect() {
        this.set(cluster.nodesAlive());
      },
    });
    new Gauge({
      name: 'meet_cluster_nats_connected',
      help: 'Whether this node is connected to NATS (1) or not (0)',
      registers,
      collect() {
        this.set(cluster.natsConnected() ? 1 : 0);
      },
    });
  }

  /**
   * A valid licence of a module the daemon runs, from the start's check and the daily one (a key
   * installed since counts from then). One that ends while the daemon runs is kept: its days left
   * go to 0 and below, which is what an alert wants to see.
   */
  licence(module: string, licence: Licence): void {
    this.licences.set(module, licence);
  }

  /** Counts into the request metrics beside `other` (the summary line's recorder). */
  recorderWith(other: RequestRecorder): RequestRecorder {
    const requests = this.requests;
    return {
      record(family, status, elapsedMs, upgraded) {
        other.record(family, status, elapsedMs, upgraded);
        requests.record(family, status, elapsedMs, upgraded);
      },
    };
  }

  /** setImmediate, timing each group that wrote something (a group an earlier flush emptied is no commit). */
  groupCommit(group: GroupName): AsyncDefer {
    const observe = this.commits.labels(group);
    return (run) =>
      setImmediate(() => {
        const started = process.hrtime.bigint();
        // A failed group answered its writers with the error; the metric counts only groups that wrote.
        run().then(
          (written) => {
            if (written > 0) observe.observe(Number(process.hrtime.bigint() - started) / 1e9);
          },
          () => undefined,
        );
      });
  }

  readonly waiting: WaitingCounter = {
    counted: (outcome) => {
      if (outcome === 'knock') this.knocks.inc();
      else if (outcome === 'admitted') this.admissions.inc();
      else if (outcome === 'refused' || outcome === 'barred')
        this.refusals.inc({ barred: String(outcome === 'barred') });
      else this.closed.inc({ reason: outcome });
    },
  };
}
