import type { Command } from '../command.ts';
import { billingCommands } from './billing.ts';
import { charityCommands } from './charities.ts';
import { contractCommands } from './contracts.ts';
import { databaseCommands } from './database.ts';
import { gatewayUserCommands } from './gateway-users.ts';
import { partnerCommands } from './partners.ts';
import { pendingCommands } from './pending.ts';
import { processorCommands } from './processors.ts';
import { settleCommands } from './settle.ts';
import { vaultCommands } from './vault.ts';
import { notificationCommands } from './notifications.ts';

/** Every operator command. Each feature adds its list here. */
export const commands: Command[] = [...partnerCommands, ...processorCommands, ...contractCommands, ...vaultCommands, ...gatewayUserCommands, ...settleCommands, ...pendingCommands, ...charityCommands, ...billingCommands, ...notificationCommands, ...databaseCommands];
