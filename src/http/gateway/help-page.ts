import { OPERATIONS } from './operations.ts';
import { soapActionOf } from './soap-action.ts';
import { escapeXml } from './xml.ts';

const escapeHtml = escapeXml;

/** The operations page at GET /admin/ws/recurring.asmx, as an .asmx service has one. */
export function helpPage(namespace: string, path: string): string {
  const ops = OPERATIONS.map((op) => {
    const params = op.parameters
      .map((p) => `<tr><td><code>${p.name}</code></td><td>${escapeHtml(p.description)}</td><td>${p.described ? 'described' : 'sample'}</td></tr>`)
      .join('');
    const sample =
      `POST ${path} HTTP/1.1\nContent-Type: text/xml; charset=utf-8\nSOAPAction: "${soapActionOf(namespace, op.name)}"\n\n` +
      `<?xml version="1.0" encoding="utf-8"?>\n<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">\n  <soap:Body>\n` +
      `    <${op.name} xmlns="${namespace}">\n${op.parameters.map((p) => `      <${p.name}>string</${p.name}>`).join('\n')}\n    </${op.name}>\n  </soap:Body>\n</soap:Envelope>`;
    const form = `POST ${path}/${op.name} HTTP/1.1\nContent-Type: application/x-www-form-urlencoded\n\n${op.parameters.map((p) => `${p.name}=string`).join('&')}`;
    return (
      `<section id="${op.name}"><h2>${op.name}</h2><p>${escapeHtml(op.summary)}</p>` +
      `<table><thead><tr><th>Parameter</th><th>Meaning</th><th>Source</th></tr></thead><tbody>${params}</tbody></table>` +
      `<h3>SOAP 1.1</h3><pre>${escapeHtml(sample)}</pre><h3>HTTP POST</h3><pre>${escapeHtml(form)}</pre></section>`
    );
  }).join('');
  return (
    `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Recurring web service</title>` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.4}` +
    `table{border-collapse:collapse}td,th{border:1px solid #999;padding:.25rem .5rem;text-align:left}pre{background:#f4f4f4;padding:.75rem;overflow:auto}</style></head>` +
    `<body><h1>Recurring</h1><p>The tokenization gateway: SOAP 1.1, SOAP 1.2 and HTTP POST. Namespace <code>${escapeHtml(namespace)}</code>. ` +
    `Service description: <a href="${escapeHtml(path)}?WSDL">WSDL</a>.</p>` +
    `<p>Every reply is a RecurringResult record; <code>code</code> is <code>OK</code> on success and names the problem otherwise, with <code>error</code> in words.</p>` +
    `<h2>Operations</h2><ul>${OPERATIONS.map((op) => `<li><a href="#${op.name}">${op.name}</a>: ${escapeHtml(op.summary)}</li>`).join('')}</ul>` +
    ops +
    `</body></html>`
  );
}
