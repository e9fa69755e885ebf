import { Gauge, type MetricType } from 'prom-client';

/**
 * A gauge exposed with `# TYPE … untyped`. prom-client has no untyped metric, and the rolling one-hour
 * totals must be neither counters (they go down as the hour rolls on) nor gauges (promtool rejects a
 * gauge whose name ends in `_total`). Everything else — label escaping, formatting — is prom-client's.
 */
export class UntypedMetric<T extends string> extends Gauge<T> {
  override async get(): ReturnType<Gauge<T>['get']> {
    const metric = await super.get();
    return { ...metric, type: 'untyped' as unknown as MetricType };
  }
}
