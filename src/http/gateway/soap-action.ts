/**
 * The SOAPAction of an operation: `{soap_namespace}/<OperationName>` (the spec). A namespace
 * configured with a trailing slash, as ASP.NET services often have (`http://tempuri.org/`), gives
 * `http://tempuri.org/GetToken`, as such services do, not a doubled slash; the namespace itself
 * stays exactly as configured in the WSDL and in every element.
 */
export function soapActionOf(namespace: string, operation: string): string {
  return `${withoutTrailingSlash(namespace)}/${operation}`;
}

/** Two spellings of one namespace, with and without a trailing slash, are taken as the same on input. */
export function sameNamespace(a: string, b: string): boolean {
  return withoutTrailingSlash(a) === withoutTrailingSlash(b);
}

function withoutTrailingSlash(namespace: string): string {
  return namespace.replace(/\/+$/, '');
}
