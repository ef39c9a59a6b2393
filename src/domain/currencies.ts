/**
 * ISO 4217 currencies in use whose minor unit is 2 (the list's "E" column): amounts are kept and
 * sent to processors in cents, so only these can be charged as recorded. A static table, not
 * Intl: ICU's display digits differ from ISO's minor units (it shows HUF, COP or IDR without
 * decimals) and change with the runtime's ICU version. Funds codes (BOV, CHE, USN ...), precious
 * metals, XDR and withdrawn currencies are left out.
 */
export const CENT_CURRENCIES: ReadonlySet<string> = new Set(
  (
    'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BRL BSD BTN BWP BYN BZD ' +
    'CAD CDF CHF CNY COP CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD ' +
    'GTQ GYD HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD ' +
    'MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP ' +
    'PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS ' +
    'TMT TOP TRY TTD TWD TZS UAH USD UYU UZS VED VES WST XCD XCG YER ZAR ZMW ZWG'
  ).split(' '),
);
