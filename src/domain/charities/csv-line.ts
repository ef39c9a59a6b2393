/**
 * Splits one line of comma-separated values (RFC 4180 quoting: a field in double quotes may hold
 * commas and doubled quotes). Returns null when the quoting is broken, so that the caller can
 * reject that one line: a bad row never takes the rest of the file with it.
 */
export function splitCsvLine(line: string): string[] | null {
  if (!line.includes('"')) return line.split(',');
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    if (line[i] === '"') {
      let value = '';
      i++;
      for (;;) {
        const close = line.indexOf('"', i);
        if (close < 0) return null;
        value += line.slice(i, close);
        if (line[close + 1] === '"') {
          value += '"';
          i = close + 2;
          continue;
        }
        i = close + 1;
        break;
      }
      fields.push(value);
      if (i === line.length) return fields;
      if (line[i] !== ',') return null;
      i++;
    } else {
      const comma = line.indexOf(',', i);
      const value = line.slice(i, comma < 0 ? line.length : comma);
      if (value.includes('"')) return null;
      fields.push(value);
      if (comma < 0) return fields;
      i = comma + 1;
    }
  }
}
