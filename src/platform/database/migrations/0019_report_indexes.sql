-- Transaction reports (issue 28; src/modules/reports, docs/decisions.md "Transaction reports").
-- Every report reads one partner's payments, so each index leads with partner_id: a filter on
-- dates, statuses, source, organization or an id, and a sort by date or amount, reads only the
-- partner's matching entries, and a count of them is an index-only scan. PaymentDate alone uses
-- payments_partner_created (0004); PaymentId, PaymentGuid, PaymentExternalId, SettlementBatch and
-- RecurringProfile use the indexes they already have.
CREATE INDEX payments_report_source ON payments (partner_id, integration_source_id, created_at);
CREATE INDEX payments_report_organization ON payments (partner_id, organization_id, created_at);
CREATE INDEX payments_report_status ON payments (partner_id, process_status, created_at);
CREATE INDEX payments_report_result ON payments (partner_id, payment_result, created_at);
CREATE INDEX payments_report_amount ON payments (partner_id, total_amount_cents);
-- Partial: a payment is in these only once it has the value.
CREATE INDEX payments_report_settled ON payments (partner_id, settled_at) WHERE settled_at IS NOT NULL;
CREATE INDEX payments_report_tran_id ON payments (partner_id, tran_id) WHERE tran_id IS NOT NULL;
CREATE INDEX payments_report_constituent ON payments (partner_id, external_constituent_id) WHERE external_constituent_id IS NOT NULL;
CREATE INDEX payments_report_pay_link ON payments (pay_link_id) WHERE pay_link_id IS NOT NULL;
-- RefundedDate and VoidedDate: the refunds and voids that went through, by when.
CREATE INDEX payment_adjustments_report ON payment_adjustments (partner_id, processed_at) WHERE status = 'approved';
