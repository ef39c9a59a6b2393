import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatCutoff, latestCutoff, nextCutoff, parseCutoff } from '../../src/domain/settlement-cutoff.ts';

const DAY = 86_400_000;

describe('settlement cut-off', () => {
  it('parses HH:MM in UTC and refuses anything else', () => {
    expect(parseCutoff('02:00')).toBe(120);
    expect(parseCutoff(' 23:59 ')).toBe(1439);
    expect(parseCutoff('00:00')).toBe(0);
    for (const bad of ['24:00', '2:00', '02:0', '02:60', '02-00', '', '02:00Z', '12:00 PM']) expect(parseCutoff(bad)).toBeUndefined();
    expect(formatCutoff(120)).toBe('02:00');
    expect(formatCutoff(150)).toBe('02:30');
    expect(formatCutoff(1439)).toBe('23:59');
    expect(formatCutoff(0)).toBe('00:00');
    expect(formatCutoff(parseCutoff('07:05')!)).toBe('07:05');
  });

  it('is today’s cut-off once it has passed (or is exactly now), yesterday’s before', () => {
    expect(latestCutoff(new Date('2026-11-22T01:59:59.999Z'), 120).toISOString()).toBe('2026-11-21T02:00:00.000Z');
    expect(latestCutoff(new Date('2026-11-22T02:00:00.000Z'), 120).toISOString()).toBe('2026-11-22T02:00:00.000Z');
    expect(latestCutoff(new Date('2026-11-22T23:00:00.000Z'), 120).toISOString()).toBe('2026-11-22T02:00:00.000Z');
    expect(latestCutoff(new Date('2026-01-01T00:00:00.000Z'), 0).toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(nextCutoff(new Date('2026-11-22T02:00:00.000Z'), 120).toISOString()).toBe('2026-11-23T02:00:00.000Z');
  });

  it('property: the latest cut-off is at or before now, less than a day before, at the cut-off time of day', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_102_444_800_000 }), fc.integer({ min: 0, max: 1439 }), (ms, minutes) => {
        const now = new Date(ms);
        const cutoff = latestCutoff(now, minutes);
        expect(cutoff.getTime()).toBeLessThanOrEqual(ms);
        expect(ms - cutoff.getTime()).toBeLessThan(DAY);
        expect(cutoff.getUTCHours() * 60 + cutoff.getUTCMinutes()).toBe(minutes);
        expect(cutoff.getUTCSeconds() + cutoff.getUTCMilliseconds()).toBe(0);
        expect(nextCutoff(now, minutes).getTime()).toBeGreaterThan(ms);
      }),
    );
  });
});
