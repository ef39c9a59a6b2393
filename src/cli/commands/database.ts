import type { Command } from '../command.ts';

/**
 * A database restored from a backup or copied: settlement and billing wait until the operator has
 * stopped the old copy, reconciled with the processor, and confirmed it here (see
 * src/services/database-identity.ts and README "Backup and restore").
 */
export const databaseCommands: Command[] = [
  {
    name: 'database status',
    summary: 'say whether this database is the one the service last ran on, or a restored or copied one waiting for confirm-move',
    usage: 'database status',
    async run(ctx) {
      const { databaseIdentity } = await ctx.services();
      const confirmed = await databaseIdentity.confirmed();
      const identity = await databaseIdentity.current();
      if (ctx.json) {
        ctx.out(JSON.stringify({ confirmed, identity }));
      } else {
        ctx.out(`Database: system ${identity.systemIdentifier}, oid ${identity.databaseOid}`);
        ctx.out(
          confirmed
            ? 'Confirmed: settlement and billing run.'
            : 'Restored or copied, not confirmed: settlement and billing wait. Stop every server of the old database, reconcile with the processor what happened after the backup, then run payments database confirm-move.',
        );
      }
      // Exit 1 while unconfirmed, for monitoring (as vault status does for a missing key).
      return confirmed ? 0 : 1;
    },
  },
  {
    name: 'database confirm-move',
    summary: 'make a restored or copied database the live one: move its key and id sequences past the old copy\'s, and let settlement and billing run',
    usage: 'database confirm-move',
    async run(ctx) {
      const { databaseIdentity } = await ctx.services();
      const done = await databaseIdentity.confirmMove();
      if (ctx.json) return ctx.out(JSON.stringify(done));
      ctx.out(`Confirmed this database (system ${done.identity.systemIdentifier}, oid ${done.identity.databaseOid}): settlement and billing run from their next turn.`);
      for (const s of done.sequences) ctx.out(`  ${s.name}: next after ${s.to} (was ${s.from})`);
    },
  },
];
