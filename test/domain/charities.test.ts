import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { charityId, uuidV5 } from '../../src/domain/charities/charity.ts';
import { countryCode } from '../../src/domain/charities/countries.ts';
import { craFormat } from '../../src/domain/charities/cra-listing.ts';
import { splitCsvLine } from '../../src/domain/charities/csv-line.ts';
import { detectFormat } from '../../src/domain/charities/file-format.ts';
import { searchText } from '../../src/domain/charities/search-text.ts';
import { parseTaxId } from '../../src/domain/charities/tax-id.ts';

const IRS_HEADER =
  'EIN,NAME,ICO,STREET,CITY,STATE,ZIP,GROUP,SUBSECTION,AFFILIATION,CLASSIFICATION,RULING,DEDUCTIBILITY,FOUNDATION,ACTIVITY,ORGANIZATION,STATUS,TAX_PERIOD,ASSET_CD,INCOME_CD,FILING_REQ_CD,PF_FILING_REQ_CD,ACCT_PD,ASSET_AMT,INCOME_AMT,REVENUE_AMT,NTEE_CD,SORT_NAME';
const CRA_HEADER_12 =
  'BN/Registration number:\tCharity name:\tCharity status: \tEffective date of status:\tSanction \tDesignation: \tCategory: \tAddress:\tCity:\tProvince, territory, outside of Canada:\tCountry:\tPostal code/Zip code:\t';

const irs = detectFormat(IRS_HEADER)!;
const parseIrs = (line: string) => irs.parseRow(line);

describe('searchText', () => {
  it('folds case, accents, punctuation and ampersands', () => {
    expect(searchText("Société d'Entraide & Co.")).toBe('societe dentraide and co');
    expect(searchText('GROUPE D’ENTRAIDE EN SANTÉ MENTALE')).toBe('groupe dentraide en sante mentale');
    expect(searchText('  Straße   Œuvre ')).toBe('strasse oeuvre');
    expect(searchText('(A.C.C.E.S.) ACCESSIBLE')).toBe('a c c e s accessible');
    expect(searchText('!!!')).toBe('');
  });

  it('is idempotent and leaves only lower-case words separated by single spaces', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (text) => {
        const once = searchText(text);
        expect(searchText(once)).toBe(once);
        expect(once).not.toMatch(/^ | $|  /);
        expect(once).toBe(once.toLowerCase());
      }),
    );
  });
});

describe('CharityId', () => {
  it('is a UUID v5 (the RFC example gives the known value)', () => {
    expect(uuidV5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'python.org')).toBe('886313e1-3b8a-5372-9b90-0c9aee199e5d');
  });

  it('depends on registry and number only', () => {
    expect(charityId('IRS', '530196605')).toBe(charityId('IRS', '530196605'));
    expect(charityId('IRS', '530196605')).not.toBe(charityId('CRA', '530196605'));
    expect(charityId('IRS', '530196605')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('splitCsvLine', () => {
  it('splits quoted fields that hold commas and doubled quotes', () => {
    expect(splitCsvLine('a,"b,c",d')).toEqual(['a', 'b,c', 'd']);
    expect(splitCsvLine('"say ""hi""",x,')).toEqual(['say "hi"', 'x', '']);
  });

  it('returns null for broken quoting', () => {
    expect(splitCsvLine('a,"b,c')).toBeNull();
    expect(splitCsvLine('a,"b"c,d')).toBeNull();
    expect(splitCsvLine('a,b"c,d')).toBeNull();
  });

  it('reads back any row written with quotes where needed', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 12 }).filter((s) => !/[\r\n]/.test(s)), { minLength: 1, maxLength: 8 }), (fields) => {
        const line = fields.map((f) => (/[",]/.test(f) ? `"${f.replace(/"/g, '""')}"` : f)).join(',');
        expect(splitCsvLine(line)).toEqual(fields);
      }),
    );
  });
});

describe('IRS EO BMF rows', () => {
  it('maps a domestic row, keeping the EIN leading zero and the "in care of" line', () => {
    const row = parseIrs('010490759,P A T T,% RANDI BAUN,700 PENNSYLVANIA AVE SE STE 200,WASHINGTON,DC,20003-2493,0000,03,3,1000,199510,1,15,123000000,1,01,202312,0,0,02,0,12,0,0,0,M014,PARENTS AGAINST TIRED TRUCKERS');
    expect(row).toEqual({
      ok: true,
      record: expect.objectContaining({
        registry: 'IRS',
        registryNumber: '010490759',
        taxIdRoot: '010490759',
        ein: '01-0490759',
        name: 'P A T T',
        address1: '700 PENNSYLVANIA AVE SE STE 200',
        address2: '% RANDI BAUN',
        city: 'WASHINGTON',
        state: 'DC',
        zip: '20003-2493',
        country: 'US',
        nteeCode: 'M014',
        eligible: true,
        groupExemption: null,
        groupRole: null,
      }),
    });
  });

  it('reads a foreign row: the country from CITY, the address kept whole', () => {
    const row = parseIrs('200443614,INTERNATIONAL FACILITY MANAGEMENT ASSOCIATION INC,% CHAPTER ADMINISTRATOR,"VANCOUVER,BC,V6A 4G2",CANADA,,00000-0000,7100,06,9,1000,198904,0,00,000000000,5,01,,0,0,01,0,06,,,,,BRITISH COLUMBIA CHAPTER');
    expect(row.ok && row.record).toMatchObject({ address1: 'VANCOUVER,BC,V6A 4G2', city: null, state: null, zip: null, country: 'CA', eligible: false, groupExemption: '7100', groupRole: 'member' });
  });

  it('treats deductibility codes 1 and 4 as eligible, others not', () => {
    const line = (code: string) => `010123106,X,,S,C,DC,20032,0000,03,9,7000,196811,${code},10,0,5,01,,0,0,06,0,12,,,,,`;
    expect(['0', '1', '2', '4'].map((c) => { const r = parseIrs(line(c)); return r.ok && r.record.eligible; })).toEqual([false, true, false, true]);
  });

  it('marks central organizations (affiliation 6 or 8) of a group', () => {
    const row = parseIrs('530196617,UNITED STATES CATHOLIC CONFERENCE,,3211 4TH ST NE,WASHINGTON,DC,20017-1104,0928,03,8,7000,194603,1,10,000000000,5,01,,0,0,06,0,12,,,,,');
    expect(row.ok && row.record).toMatchObject({ groupExemption: '0928', groupRole: 'central' });
  });

  it('gives US territories found in CITY the US as country and the territory as state', () => {
    const row = parseIrs('660000001,X,,CALLE 1,PUERTO RICO,,00000-0000,0000,03,3,1000,200001,1,15,0,1,01,,0,0,02,0,12,,,,,');
    expect(row.ok && row.record).toMatchObject({ country: 'US', state: 'PR', city: null });
  });

  it.each([
    ['12345678,X,,S,C,DC,2,0000,03,3,1000,1,1,15,0,1,01,,0,0,02,0,12,,,,,', 'EIN "12345678" is not 9 digits'],
    ['123456789,,,S,C,DC,2,0000,03,3,1000,1,1,15,0,1,01,,0,0,02,0,12,,,,,', 'NAME is empty'],
    ['123456789,X,,S,C,DC', '6 fields instead of 28'],
    ['123456789,"X,,S,C,DC,2,0000,03,3,1000,1,1,15,0,1,01,,0,0,02,0,12,,,,,', 'unbalanced double quotes'],
  ])('rejects %s', (line, reason) => {
    expect(parseIrs(line)).toEqual({ ok: false, reason });
  });
});

describe('CRA listing rows', () => {
  const cra = detectFormat(CRA_HEADER_12)!;

  it('recognizes the header with stray spaces and a trailing tab', () => {
    expect(cra.label).toBe('CRA charities listing (12 columns)');
  });

  it('maps a registered charity and formats its postal code', () => {
    const row = cra.parseRow('136747276RR0001\t(A.C.C.E.S.) ACCESSIBLE COMMUNITY COUNSELLING AND EMPLOYMENT SERVICES\tRegistered\t1987-08-15\t\t0001\t0010\t489 COLLEGE ST., STE 100\tTORONTO\tON\tCA\tM6G1A5');
    expect(row.ok && row.record).toMatchObject({
      registry: 'CRA',
      registryNumber: '136747276RR0001',
      taxIdRoot: '136747276',
      ein: '136747276RR0001',
      city: 'TORONTO',
      state: 'ON',
      zip: 'M6G 1A5',
      country: 'CA',
      eligible: true,
      nteeCode: null,
      address2: null,
    });
  });

  it('is not eligible when revoked or when receipting is suspended', () => {
    const revoked = cra.parseRow('865910137RR0001\tX\tRevoked-Failure to File\t2005-09-03\t\t0002\t0210\tA\tVICTORIA\tBC\tCA\tV9A2N1');
    const suspended = cra.parseRow('865910137RR0001\tX\tRegistered\t2005-09-03\tSuspension of receipting privileges\t0002\t0210\tA\tVICTORIA\tBC\tCA\tV9A2N1');
    expect([revoked, suspended].map((r) => r.ok && r.record.eligible)).toEqual([false, false]);
  });

  it('finds the columns of the newer 14-column export by their labels, in any order', () => {
    const header =
      'BN/Registration number:\tCharity name:\tCharity status:\tEffective date of status:\tSanction:\tDesignation:\tCategory:\tType of qualified donee:\tCharity type:\tAddress:\tCity:\tProvince, territory, outside of Canada:\tCountry:\tPostal code/Zip code:';
    const format = craFormat(header)!;
    expect(format.label).toBe('CRA charities listing (14 columns)');
    const row = format.parseRow('119052124RR0001\tCAHRD\tRegistered\t1987-04-01\t\t0001\t0001\tRegistered charity\tCharitable organization\t304-181 HIGGINS AVENUE\tWINNIPEG\tMB\tCA\tR3B3G1');
    expect(row.ok && row.record).toMatchObject({ address1: '304-181 HIGGINS AVENUE', city: 'WINNIPEG', state: 'MB', zip: 'R3B 3G1' });
  });

  it.each([
    ['13674727RR0001\tX\tRegistered\t\t\t\t\tA\tC\tON\tCA\tM6G1A5', 'BN "13674727RR0001" is not of the form #########RR####'],
    ['136747276RR0001\tX\tRegistered', '3 fields instead of 12'],
    ['136747276RR0001\t\tRegistered\t\t\t\t\tA\tC\tON\tCA\tM6G1A5', 'Charity name is empty'],
  ])('rejects %s', (line, reason) => {
    expect(cra.parseRow(line)).toEqual({ ok: false, reason });
  });
});

describe('detectFormat', () => {
  it('knows neither other CSV files nor empty headers', () => {
    expect(detectFormat('id,name,city')).toBeNull();
    expect(detectFormat('')).toBeNull();
    expect(detectFormat('\uFEFF' + IRS_HEADER)?.label).toBe('IRS EO BMF (28 columns)');
  });
});

describe('countryCode', () => {
  it.each([
    ['CANADA', 'CA'], ['UNITED KINGDOM', 'GB'], ['ENGLAND', 'GB'], ['THE BAHAMAS', 'BS'], ['ONTARIO CANADA', 'CA'],
    ['PETEN GUATEMALA', 'GT'], ["COTE D'IVOIRE", 'CI'], ['REPUBLIC OF KOREA', 'KR'], ['EAST AFRICA', null], ['AKROTIRI', null],
  ])('%s -> %s', (name, code) => {
    expect(countryCode(name)).toBe(code);
  });
});

describe('parseTaxId', () => {
  it('reads every written form of a US EIN and a Canadian BN', () => {
    expect(parseTaxId('53-0196605')).toEqual({ root: '530196605', registryNumber: null, only: 'IRS' });
    expect(parseTaxId('530196605')).toEqual({ root: '530196605', registryNumber: null, only: null });
    expect(parseTaxId('136747276rr0001')).toEqual({ root: '136747276', registryNumber: '136747276RR0001', only: 'CRA' });
    expect(parseTaxId(' 136747276 RR 0001 ')).toEqual({ root: '136747276', registryNumber: '136747276RR0001', only: 'CRA' });
    expect(parseTaxId('5301966')).toBeNull();
    expect(parseTaxId('530-196605')).toBeNull();
  });
});
