export { seedTestPartner } from '../../test/helpers/context.ts';
