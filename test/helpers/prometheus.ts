import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { required, runs } from './tools.ts';

/** The official Prometheus client's text-format parser (Python) is installed: Debian's python3-prometheus-client. */
export const hasPrometheusParser = () => required('Prometheus text-format parser', runs('/usr/bin/python3', ['-c', 'import prometheus_client.parser']), 'python3-prometheus-client');

interface Family {
  name: string;
  type: string;
  samples: { name: string; labels: Record<string, string>; value: number | string }[];
}

const PARSER = join(import.meta.dirname, 'prometheus_parse.py');

/** Parses a scrape with the official client's parser: what Prometheus reads, or a failure. */
async function parse(text: string): Promise<Family[]> {
  const child = promisify(execFile)('/usr/bin/python3', [PARSER], { maxBuffer: 64 * 1024 * 1024 });
  child.child.stdin!.end(text);
  return JSON.parse((await child).stdout) as Family[];
}

/**
 * A scrape of a metrics endpoint, as the Prometheus text-format parser read it. Histograms are
 * read by their `_count` series, counters by their value (the family's name without `_total`).
 */
export class Scrape {
  readonly families: Family[];

  private constructor(families: Family[]) {
    this.families = families;
  }

  static async parse(text: string): Promise<Scrape> {
    return new Scrape(await parse(text));
  }

  static async of(url: string): Promise<Scrape> {
    const res = await fetch(url);
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
    return Scrape.parse(await res.text());
  }

  /** The family's type (counter, gauge, histogram), undefined when it is not there. */
  type(name: string): string | undefined {
    return this.#family(name)?.type;
  }

  #family(name: string): Family | undefined {
    // The parser names a counter's family without its `_total`.
    return this.families.find((f) => f.name === name || `${f.name}_total` === name);
  }

  #sample(family: string, sample: string, labels: Record<string, string>): number {
    const found = this.#family(family)?.samples.find((s) => s.name === sample && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
    return Number(found?.value ?? 0);
  }

  /** A counter's or gauge's value (0 when the labelled series does not exist yet). */
  value(name: string, labels: Record<string, string> = {}): number {
    return this.#sample(name, name, labels);
  }

  /** A histogram's count of observations (0 when the labelled series does not exist yet). */
  count(name: string, labels: Record<string, string> = {}): number {
    return this.#sample(name, `${name}_count`, labels);
  }

  /** Every label value of every series. */
  labelValues(): string[] {
    return this.families.flatMap((f) => f.samples.flatMap((s) => Object.values(s.labels)));
  }
}
