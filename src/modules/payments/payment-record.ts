import type { FeeBreakdown } from '../../domain/fees.ts';
import type { payments } from '../../platform/database/schema/index.ts';

export type PaymentRow = typeof payments.$inferSelect;

/** A payment as the services hand it to the surfaces: its row and the fee breakdown of each line. */
export interface PaymentRecord {
  payment: PaymentRow;
  lines: FeeBreakdown[];
}
