// The part of autocannon's programmatic API the bench uses (the package ships no types).
declare module 'autocannon' {
  export interface RequestParams {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
  }
  export interface RequestSpec extends RequestParams {
    setupRequest?: (
      request: RequestParams & Record<string, unknown>,
      context: Record<string, unknown>,
    ) => RequestParams | null | undefined;
    onResponse?: (
      status: number,
      body: string,
      context: Record<string, unknown>,
      headers: Record<string, string | string[]>,
    ) => void;
  }
  export interface Options extends RequestParams {
    /** Several: the connections are spread over them in turn. */
    url: string | string[];
    connections?: number;
    duration?: number;
    timeout?: number;
    pipelining?: number;
    /** Requests per second over all connections together (a fixed offered load); without it, as fast as answers come. */
    overallRate?: number;
    requests?: RequestSpec[];
  }
  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    sent: number;
    p50: number;
    p90: number;
    p97_5: number;
    p99: number;
  }
  export interface Result {
    requests: Histogram;
    latency: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    statusCodeStats: Record<string, { count: number }>;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
