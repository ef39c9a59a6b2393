import type { Services } from '../../composition.ts';
import type { DatabaseIdentity } from '../../modules/operations/database-identity-service.ts';
import { ConflictError } from '../../platform/errors.ts';
import { type Command, UsageError } from '../command.ts';

/**
 * A database restored from a backup or copied: settlement and billing wait until the operator has
 * stopped the old copy, reconciled with the processor, and confirmed it here (see
 * src/modules/operations/database-identity-service.ts and README "Backup and restore").
 */

const WAITING =
  'this database was restored or copied and waits for confirmation: stop every server of the old database, reconcile with the processor what happened after the backup, then run payments database confirm-move';

/** `billing run` and `settle` move money as the server's jobs do: not on a database that waits. */
export async function refuseWaitingDatabase(services: Services): Promise<void> {
  if (!(await services.databaseIdentity.confirmed())) throw new Error(WAITING);
}

const describeIdentity = (i: DatabaseIdentity) => `tables ${i.appSettingsOid}/${i.paymentsOid}`;

export const databaseCommands: Command[] = [
  {
    name: 'database status',
    summary: 'say whether this database is the one the service last ran on, or a restored, copied or held one waiting for confirm-move',
    usage: 'database status',
    async run(ctx) {
      const { databaseIdentity } = await ctx.services();
      const confirmed = await databaseIdentity.confirmed();
      const identity = await databaseIdentity.current();
      if (ctx.json) {
        ctx.out(JSON.stringify({ confirmed, identity }));
      } else {
        ctx.out(`Database: ${describeIdentity(identity)}`);
        ctx.out(confirmed ? 'Confirmed: settlement and billing run.' : `Waiting: settlement and billing do not run. To end it: ${WAITING.split(': ').slice(1).join(': ')}.`);
      }
      // Exit 1 while it waits, for monitoring (as vault status does for a missing key).
      return confirmed ? 0 : 1;
    },
  },
  {
    name: 'database hold',
    summary: 'make settlement and billing wait on this database until confirm-move (after a restore the service cannot tell: a physical backup, a copied data directory)',
    usage: 'database hold',
    async run(ctx) {
      const { databaseIdentity } = await ctx.services();
      await databaseIdentity.hold();
      if (ctx.json) return ctx.out(JSON.stringify({ confirmed: false }));
      ctx.out('Held: settlement and billing wait on this database until payments database confirm-move.');
    },
  },
  {
    name: 'database confirm-move',
    summary: "make a restored, copied or held database the live one: move its key and id sequences past the old copy's, and let settlement and billing run",
    usage: 'database confirm-move [--force]',
    options: {
      force: { type: 'boolean', description: 'on a database that does not wait too (moves the sequences on again)' },
    },
    async run(ctx, { values }) {
      const { databaseIdentity } = await ctx.services();
      const done = await databaseIdentity.confirmMove({ force: values.force === true }).catch((err: unknown) => {
        // Only a database that waits is confirmed without --force.
        if (err instanceof ConflictError) throw new UsageError(`${err.message}\nusage: payments ${this.usage}`);
        throw err;
      });
      if (ctx.json) return ctx.out(JSON.stringify(done));
      ctx.out(`Confirmed this database (${describeIdentity(done.identity)}): settlement and billing run from their next turn.`);
      for (const s of done.sequences) ctx.out(`  ${s.name}: next after ${s.to} (was ${s.from})`);
    },
  },
];
