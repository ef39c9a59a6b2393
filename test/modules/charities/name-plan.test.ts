import { describe, expect, it } from 'vitest';
import { BEGINNING_FIRST_MATCHES, COMMON_SHARE, MAX_ROWS_TO_CHECK, SCAN_SHARE, planNameSearch, searchBeginningFirst } from '../../../src/modules/charities/name-plan.ts';
import { NO_STATISTICS, type NameStatistics } from '../../../src/modules/charities/name-statistics.ts';

const cond = (...words: string[]) => ({ words, patterns: words.map((w) => `% ${w} %`) });
/** A national-size directory where "inc" is in 36 % of names, "of" 17 %, "foundation" 10 %. */
const national: NameStatistics = {
  rows: 1_900_000,
  commonWords: new Map([
    ['inc', 0.36],
    ['of', 0.17],
    ['foundation', 0.1],
    ['the', 0.076],
    ['church', 0.037],
    ['hospital', 0.004],
  ]),
  rareBelow: 0.0005,
};

describe('planNameSearch', () => {
  it('lets the index answer everything when there are no statistics (an empty or new directory)', () => {
    expect(planNameSearch([cond('inc'), cond('of')], NO_STATISTICS)).toEqual({ scan: false, indexed: new Set([0, 1]) });
  });

  it('checks common words on the rows a rare word finds', () => {
    // "monticello" is not among the common words: about 475 names at most; "inc" and "of" are checked on those.
    const plan = planNameSearch([cond('inc'), cond('monticello'), cond('of')], national);
    expect(plan).toEqual({ scan: false, indexed: new Set([1]) });
  });

  it('reads the directory in storage order when matches are that common', () => {
    expect(0.36).toBeGreaterThanOrEqual(SCAN_SHARE);
    expect(planNameSearch([cond('inc')], national)).toEqual({ scan: true });
    // A prefix stands for several words: their shares add up.
    expect(planNameSearch([cond('foundation', 'foundations', 'the')], national)).toEqual({ scan: true });
  });

  it('never reads in storage order on a guess about rare words, however many', () => {
    // 72 words rarer than every common one: perhaps 1.8 % of names by the guess, perhaps a handful.
    const rare = Array.from({ length: 72 }, (_, i) => `bar${i}`);
    expect(planNameSearch([cond(...rare)], { ...national, rareBelow: 0.0006 })).toEqual({ scan: false, indexed: new Set([0]) });
  });

  it('adds conditions to the index, rarest first, while it would leave too many rows to check', () => {
    // church alone leaves 70,300 rows; with foundation 7,030; with "of" 1,195 <= MAX_ROWS_TO_CHECK.
    expect(1_900_000 * 0.037 * 0.1 * 0.17).toBeLessThanOrEqual(MAX_ROWS_TO_CHECK);
    const plan = planNameSearch([cond('inc'), cond('of'), cond('church'), cond('foundation')], national);
    expect(plan).toEqual({ scan: false, indexed: new Set([2, 3, 1]) });
  });

  it('always indexes a condition rarer than COMMON_SHARE', () => {
    expect(0.004).toBeLessThan(COMMON_SHARE);
    // hospital leaves 7,600 rows; church then leaves 281: both indexed, "inc" checked.
    expect(planNameSearch([cond('church'), cond('hospital'), cond('inc')], national)).toEqual({ scan: false, indexed: new Set([1, 0]) });
  });
});

describe('searchBeginningFirst', () => {
  it('looks first among the names beginning with the query when its words are estimated to match many', () => {
    // "foundation for": 1.9 M x 0.1 x 0.076 ("the" standing in for a common prefix) = 14,440.
    expect(searchBeginningFirst([cond('foundation'), cond('the')], national)).toBe(true);
    expect(searchBeginningFirst([cond('church')], national)).toBe(true);
  });

  it('goes straight to the index when the words are rare (its round trip would be wasted)', () => {
    // hospital and church: 1.9 M x 0.004 x 0.037 = 281 < BEGINNING_FIRST_MATCHES.
    expect(1_900_000 * 0.004 * 0.037).toBeLessThan(BEGINNING_FIRST_MATCHES);
    expect(searchBeginningFirst([cond('church'), cond('hospital')], national)).toBe(false);
    // A word outside the common ones counts as half as common as the rarest of them.
    expect(searchBeginningFirst([cond('monticello')], national)).toBe(true);
    expect(searchBeginningFirst([cond('monticello'), cond('inc')], national)).toBe(false);
  });

  it('never without statistics (an empty or new directory)', () => {
    expect(searchBeginningFirst([cond('inc')], NO_STATISTICS)).toBe(false);
  });
});
