/**
 * C0, DEL and C1 control characters: no holder text (a name, a street, a zip) holds one. The pay
 * page strips them from its form fields; the gateway refuses them in what a token stores.
 */
export const CONTROL_CHARACTERS = /[\u0000-\u001F\u007F-\u009F]/;
