/**
 * Generated from the service's /openapi.json by openapi-typescript (npm run client:generate).
 * Do not edit: client/test/generated.test.ts fails when this file is not what the document generates.
 */

export interface paths {
    "/api/CharitySearch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Search the US (IRS) and Canadian (CRA) charity directory; no AccessToken needed. */
        get: operations["searchCharities"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/ClientSession": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Exchange a ClientId and ClientSecret for an access token (valid 5 hours). */
        post: operations["createClientSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/exportOrganizationTransactionsReport": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Every payment of one of the partner’s organizations, as a CSV or Excel file. */
        post: operations["exportOrganizationTransactionsReport"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/exportSourceTransactionsReport": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Every payment of the partner's integration sources, as a CSV or Excel file. */
        post: operations["exportSourceTransactionsReport"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/fee": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The fee breakdown of one transaction line.
         * @description Rules and worked examples: docs/fees.md. 404 when the partner has no fee schedule for the group, or a referenced processor, organization, integration source or token is not the partner's (or the charity is unknown).
         */
        get: operations["getFee"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/fees": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The fee breakdowns of several transaction lines of one payment, and their totals.
         * @description PaymentMethodTypeId applies to every line; the flat fees (per transaction, card type) are charged once, on the first line. Rules and worked examples: docs/fees.md.
         */
        post: operations["calculateFees"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/nextBillDate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The next bill date after a date for a billing frequency.
         * @description Daily +1 day, Weekly +7, Bi-Weekly +14; Monthly +1 month, Bi-Monthly +2, Quarterly +3, Semi-Annually +6, Annually +12, on Date's day of the month, clamped to the last day of shorter months (Jan 31 -> Feb 28 -> Mar 31). Semi-Monthly: two days 15 apart, a and a + 15, one of them the Date's day: a = day up to the 15th, day - 15 from the 16th (the 31st: the 16th and the month's last day). 400 for a malformed or impossible Date; 404 for an unknown BillingFrequency.
         */
        get: operations["getNextBillDate"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/notificationConfig": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The partner's notification URLs (an extension).
         * @description AccessTokens are masked.
         */
        get: operations["getNotificationConfig"];
        /**
         * Save the partner's notification URLs.
         * @description Each item without NotificationConfigId adds a URL; with it, changes that config, or removes it with IsDeleted. Every change of a payment's ProcessStatus or PaymentResult is then POSTed to each URL, signed (docs/notifications.md). Answers the partner's configs.
         */
        put: operations["putNotificationConfig"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/notificationRedeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send delivered or failed notifications again (an extension).
         * @description Each is due at once with RetryCount 0 and its retries afresh, with the same NotificationGuid (Payments-Event-Id): a receiver that de-duplicates sees the same event. Pending ones are already on their way. 404 when none of the ids is one of yours.
         */
        post: operations["redeliverNotifications"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/notifications": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A payment's notifications, oldest first.
         * @description By paymentId and/or paymentExternalId (400 when neither is given); 404 when the payment has none, or is not yours.
         */
        get: operations["getNotifications"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/notificationSecret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * When the partner's signing secret was made (never the secret itself).
         * @description 404 when there is none yet: POST /api/notificationSecret makes one and answers it.
         */
        get: operations["getNotificationSecret"];
        put?: never;
        /**
         * Make a new signing secret, answered this once.
         * @description The previous secret keeps signing for 24 hours (each notification then carries two v1 signatures), so receivers can switch without losing any.
         */
        post: operations["rotateNotificationSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/notificationTest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * POST a payload once to a URL now, signed, and say what the receiver did.
         * @description The URL rules of a config apply (no private addresses). Nothing is stored and nothing is retried.
         */
        post: operations["testNotification"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/organizationTransactionsReport": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The transaction history of one of the partner’s organizations (a non-profit), a page at a time. */
        post: operations["organizationTransactionsReport"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/paylink": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a pay link: a unique URL that opens the hosted payment page.
         * @description Needs the AccessToken header and the body ApiKey (the pay-link key). A wrong ApiKey is a 400 BrokenRule (ErrorCode 6000).
         */
        post: operations["createPayLink"];
        /** Cancel a pay link; its page then answers 410. Cancelling again answers the same. */
        delete: operations["cancelPayLink"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/paylinkResult": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Confirm a pay link outcome from the redirect's responseToken (single use, 30 minutes, the link's partner only).
         * @description Returns the payment response of the payment the page made. For WorkflowType 3 and 4 (a card stored, nothing paid) the response carries the token (TokenGuid, ExternalCardToken, card fields) with PaymentGuid 00000000-0000-0000-0000-000000000000 and TotalAmount 0.
         */
        get: operations["getPayLinkResult"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/payment": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Charge a card (or a wallet). */
        post: operations["createPayment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/paymentAch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Debit a bank account (ACH). */
        post: operations["createAchPayment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/processorPaymentMethodTypes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The active payment method types of one of the partner's processors. */
        get: operations["listProcessorPaymentMethodTypes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/recurringProfile": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a recurring profile: its terms, status and next bill date (an extension).
         * @description The spec creates, changes and cancels profiles; this reads one back, for instance one a pay link started (paylinkResult gives its RecurringProfileGuid). 404 for an unknown profile or another partner's.
         */
        get: operations["getRecurringProfile"];
        /**
         * Change a recurring profile.
         * @description Only the fields sent change. A new NextBillDate restarts the schedule from it (and resumes a suspended profile); an EndDate before the next bill date completes the profile. A cancelled profile cannot be changed (400). 404 for an unknown profile or another partner's.
         */
        put: operations["updateRecurringProfile"];
        /**
         * Create a recurring profile: charge a stored token on a schedule.
         * @description The profile bills the token on its schedule through the billing worker (the first charge of a donation is usually made with POST /api/payment and Tokenize: true). 400 (BrokenRule array) when the profile cannot be created.
         */
        post: operations["createRecurringProfile"];
        /**
         * Cancel a recurring profile.
         * @description The profile stops billing for good; it and its payments are kept. Cancelling it again is refused (400). 404 for an unknown profile.
         */
        delete: operations["cancelRecurringProfile"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/refund": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Refund a settled payment in full.
         * @description Card refunds complete at once (PaymentResult 5, ProcessStatus 8); ACH refunds wait for the next settlement run (ProcessStatus 7, then 8). A payment that has not settled cannot be refunded: void it. Found by PaymentGuid or PaymentExternalId; another partner’s payment is 404.
         */
        post: operations["refundPayment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/sourceTransactionsReport": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The transaction history of the partner's integration sources, a page at a time. */
        post: operations["sourceTransactionsReport"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/void": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Void (cancel) an approved payment that has not settled.
         * @description The authorization is released and the payment never settles (PaymentResult 6, ProcessStatus 9). A settled payment cannot be voided: refund it. Found by PaymentGuid or PaymentExternalId; another partner’s payment is 404.
         */
        post: operations["voidPayment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** BrokenRule */
        BrokenRule: {
            /** Format: int32 */
            ErrorCode: number;
            LoggerMessage: string | null;
            Message: string | null;
        };
        /** FeeBreakdown */
        FeeBreakdown: {
            /** @description ACH processing fee, capped by the contract. */
            AchFeeAmount: number;
            /** @description ACH processing fee rate applied (0 for cards). A percentage as displayed: 2.9 means 2.9 %. */
            AchFeeRate: number;
            /** @description Card processing fee on Amount + Tip + Tax. */
            CardFeeAmount: number;
            /** @description With PayFee: the card fee on the fees the payer covers. */
            CardFeeOnFeeAmount: number;
            /** @description Card processing fee rate applied (0 for ACH). A percentage as displayed: 2.9 means 2.9 %. */
            CardFeeRate: number;
            /** @description Flat fee of the card's brand in the contract (first line only), otherwise 0. */
            CardTypeFeeAmount: number;
            /** @description Partner commission rate (at the maximum) + processing fee rate + platform commission rate. A percentage as displayed: 2.9 means 2.9 %. */
            MaxOverridePartnerCommissionRate: number;
            /** @description Processing fee rate + platform commission rate. A percentage as displayed: 2.9 means 2.9 %. */
            MinOverridePartnerCommissionRate: number;
            /** @description Amount + Tip + Tax times the partner commission rate. */
            PartnerCommissionAmount: number;
            /** @description The partner's commission rate. A percentage as displayed: 2.9 means 2.9 %. */
            PartnerCommissionRate: number;
            /** @description Amount charged to the payer for the line: Amount + Tip + Tax, grossed up to cover the fees when PayFee is true. */
            PaymentAmount: number;
            /** @description Flat per-transaction fee of the contract (first line only). */
            PerTransFee: number;
            /** @description Amount + Tip + Tax times the platform commission rate. */
            PlatformCommissionAmount: number;
            /** @description The provider's commission rate. A percentage as displayed: 2.9 means 2.9 %. */
            PlatformCommissionRate: number;
            /** @description Tax amount. */
            Tax: number;
            /** @description Tip for the API partner, whatever PayFee says. */
            Tip: number;
            /** @description PartnerCommissionAmount + PlatformCommissionAmount. */
            TotalCommissionAmount: number;
            /** @description Partner plus platform commission rate. A percentage as displayed: 2.9 means 2.9 %. */
            TotalCommissionRate: number;
            /** @description TotalCommissionAmount + CardFeeAmount + AchFeeAmount + PerTransFee + CardTypeFeeAmount + CardFeeOnFeeAmount. */
            TotalFees: number;
            /** @description Fee category of the line. */
            TransactionSourceGroupId: string;
        };
        /** PaymentResponse */
        PaymentResponse: {
            AddressLine1: string | null;
            AuthCode: string | null;
            AVSResponse: string | null;
            AVSStreetStatus: string | null;
            AVSZipStatus: string | null;
            CardNum: string | null;
            CardType: ("American Express" | "Mastercard" | "Visa" | "Discover" | "Diners Club" | "Undefined") | null;
            CheckAccountNum: string | null;
            City: string | null;
            CountryCode: string | null;
            Currency: string | null;
            CVVResponse: string | null;
            EmailAddress: string | null;
            EpfSessionId: string | null;
            ExpMonth: string | null;
            ExpYear: string | null;
            ExternalCardToken: string | null;
            ExternalCheckToken: string | null;
            ExternalConstituentId: string | null;
            ExternalCustomerId: string | null;
            FirstName: string | null;
            IsSurchargeEligible: boolean | null;
            LastName: string | null;
            Message: string | null;
            /**
             * Format: uuid
             * @description internal use; 00000000-0000-0000-0000-000000000000 when the payment has no organization (a for-profit partner's).
             */
            OrganizationGuid: string;
            /** Format: date-time */
            PaymentDate: string;
            /** Format: uuid */
            PaymentGuid: string;
            /** Format: int32 */
            PaymentId: number;
            PaymentMethodTypeId: number | null;
            /**
             * Format: int32
             * @description 1 Pending, 2 Processing, 3 Successful, 4 Failed, 5 Refunded, 6 Cancelled.
             * @enum {integer}
             */
            PaymentResult: 1 | 2 | 3 | 4 | 5 | 6;
            PostalCode: string | null;
            ProcessorGuid: string | null;
            ProcessorMessage: string | null;
            /**
             * Format: int32
             * @description 1 NotProcessed, 2 Authorized, 4 Settled, 5 Rejected, 6 RefundRequired, 7 AwaitingRefund, 8 Refunded, 9 Cancelled, 10 Chargeback, 11 RefundRejected.
             * @enum {integer}
             */
            ProcessStatus: 1 | 2 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11;
            ProvinceCode: string | null;
            ResponseCode: string | null;
            /** @description true only for an approval. */
            Successful: boolean;
            TokenGuid: string | null;
            /** @description Total charged: the lines’ PaymentAmount plus ShippingFee and Surcharge. */
            TotalAmount: number;
            TotalSurcharge: number | null;
            TranId: string | null;
            TransactionFees: components["schemas"]["FeeBreakdown"][];
            TransactionId: string | null;
        };
        /**
         * ProblemDetails
         * @description RFC 9457 problem details (application/problem+json).
         */
        ProblemDetails: {
            detail: string | null;
            /**
             * Format: uuid
             * @description On a 503 after the processor was asked: the payment (or refund or void) whose outcome is being confirmed. Do not pay or send it again.
             */
            PaymentGuid?: string;
            status: number;
            title: string;
            traceId: string;
            type: string;
        };
        /** RefundVoidResponse */
        RefundVoidResponse: {
            Message: string | null;
            OriginalTransactionId: string | null;
            /** Format: uuid */
            PaymentGuid: string;
            /** Format: int32 */
            PaymentId: number;
            /**
             * Format: int32
             * @description The payment's result after the request: 3 Successful, 4 Failed, 5 Refunded, 6 Cancelled.
             * @enum {integer}
             */
            PaymentResult: 1 | 2 | 3 | 4 | 5 | 6;
            ProcessorMessage: string | null;
            /**
             * Format: int32
             * @description The payment's status after the request: 2 Authorized, 4 Settled, 7 AwaitingRefund (ACH refund until the next settlement), 8 Refunded, 9 Cancelled.
             * @enum {integer}
             */
            ProcessStatus: 1 | 2 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11;
            ResponseCode: string | null;
            /** @description true when the refund or void went through; false when it was refused or declined (Message says why; nothing changed). */
            Successful: boolean;
            TransactionId: string | null;
        };
        /** TransactionReportDetails */
        TransactionReportDetails: {
            /**
             * Format: int32
             * @description This page, from 1.
             */
            PageIndex: number;
            /** Format: int32 */
            PageSize: number;
            /** @description Payments in the report, on every page. */
            TotalCount: number;
            /** @description Pages of PageSize rows. */
            TotalPages: number;
            Transactions: components["schemas"]["TransactionReportRow"][];
        };
        /**
         * TransactionReportRow
         * @description One payment. Amounts are decimal numbers of the payment currency; times are UTC.
         */
        TransactionReportRow: {
            /** @description The lines' amounts, before tips, taxes and fees. an amount (compared exactly, in cents); operations 0, 1, 5, 6, 9, 10, 11, 12, 13, 14, 15. */
            Amount: number;
            /** @description The authorization code. text (Equals and In exact; Contains, StartsWith and EndsWith ignore letter case); operations 0, 1, 2, 3, 4, 12, 13, 14, 15. */
            AuthCode: string | null;
            /**
             * Format: date
             * @description The bill date the recurring charge was for. a day: values yyyy-MM-dd; operations 0, 1, 7, 8, 16, 17, 5, 6, 9, 10, 11, 14, 15.
             */
            BillDate: string | null;
            /** @description The last 4 digits of the card (never more). text (Equals and In exact; Contains, StartsWith and EndsWith ignore letter case); operations 0, 1, 2, 3, 4, 12, 13, 14, 15. */
            CardLastFour: string | null;
            /** @description The card brand. text (Equals and In exact; Contains, StartsWith and EndsWith ignore letter case); operations 0, 1, 2, 3, 4, 12, 13, 14, 15. */
            CardType: string | null;
            /**
             * Format: uuid
             * @description The charity of the directory. a GUID; operations 0, 1, 12, 13, 14, 15.
             */
            CharityId: string | null;
            /** @description The charity's name in the directory. text (Equals and In exact; Contains, StartsWith and EndsWith ignore letter case); operations 0, 1, 2, 3, 4, 12, 13, 14, 15. */
            CharityName: string | null;
            /** @description The last 4 digits of the bank account (never more). text (Equals and In exact; Contains, StartsWith and EndsWith ignore letter case); operations 0, 1, 2, 3, 4, 12, 13, 14, 15. */
            CheckAccountLastFour: string | null;
            /** @description ISO 4217 currency code. text (Equals and In exact; Contains, StartsWith and EndsWith ignore letter case); operations 0, 1, 2, 3, 4, 12, 13, 14, 15. */
            Currency: string | null;
            /** @description The payer's email address. text (Equals and In exact; Contains, StartsWith and EndsWith ignore letter case); operations 0, 1, 2, 3, 4, 12, 13, 14, 15. */
            EmailAddress: string | null;
            /** @description The donor's id in the partner's product. text (Equals and In exact; Contains, StartsWith and EndsWith ignore letter case); operations 0, 1, 2, 3, 4, 12, 13, 14, 15. Indexed. */
            ExternalConstituentId: string | null;
            /** @description The payer's first name. text (Equals and In exact; Contains, StartsWith and EndsWith ignore letter case); operations 0, 1, 2, 3, 4, 12, 13, 14, 15. */
            FirstName: string | null;
            /**
             * Format: uuid
             * @description The integration source. a GUID; operations 0, 1, 12, 13, 14, 15. Indexed.
             */
            IntegrationSourceGuid: string | null;
            /** @description The integration source's name. text (Equals and In exact; Contains, StartsWith and EndsWith ignore letter case); operations 0, 1, 2, 3, 4, 12, 13, 14, 15. */
            IntegrationSourceName: string | null;
            /** @description The payer's last name. text (Equals and In exact; Contains, StartsWith and EndsWith ignore letter case); operations 0, 1, 2, 3, 4, 12, 13, 14, 15. */
            LastName: string | null;
            /** @description TotalAmount less TotalFees. an amount (compared exactly, in cents); operations 0, 1, 5, 6, 9, 10, 11, 12, 13, 14, 15. */
            NetAmount: number;
            /**
             * Format: uuid
             * @description The organization (non-profit) the funds went to. a GUID; operations 0, 1, 12, 13, 14, 15. Indexed.
             */
            OrganizationGuid: string | null;
            /** @description The organization's name. text (Equals and In exact; Contains, StartsWith and EndsWith ignore letter case); operations 0, 1, 2, 3, 4, 12, 13, 14, 15. */
            OrganizationName: string | null;
            /** @description The partner's commission. an amount (compared exactly, in cents); operations 0, 1, 5, 6, 9, 10, 11, 12, 13, 14, 15. */
            PartnerCommission: number;
            /** @description The pay link whose page took it. text (Equals and In exact; Contains, StartsWith and EndsWith ignore letter case); operations 0, 1, 2, 3, 4, 12, 13, 14, 15. Indexed. */
            PayLinkId: string | null;
            /**
             * Format: date-time
             * @description When the payment was made (UTC). an instant (UTC), filtered by whole days: values yyyy-MM-dd; operations 0, 1, 7, 8, 16, 17, 5, 6, 9, 10, 11, 14, 15. Indexed.
             */
            PaymentDate: string;
            /** @description The gateway transaction id (TransactionId of the payment response). text (Equals and In exact; Contains, StartsWith and EndsWith ignore letter case); operations 0, 1, 2, 3, 4, 12, 13, 14, 15. Indexed. */
            PaymentExternalId: string | null;
            /**
             * Format: uuid
             * @description The payment's GUID. a GUID; operations 0, 1, 12, 13, 14, 15. Indexed.
             */
            PaymentGuid: string;
            /**
             * Format: int32
             * @description The payment's number. a whole number; operations 0, 1, 5, 6, 9, 10, 11, 12, 13, 14, 15. Indexed.
             */
            PaymentId: number;
            /** @description Card, ACH or Wallet. a closed set, values by number or name; operations 0, 1, 12, 13, 14, 15. */
            PaymentMethod: string;
            /** @description The name of PaymentMethodTypeId (VISA, ACH ...). a closed set, values by number or name; operations 0, 1, 12, 13, 14, 15. */
            PaymentMethodType: string | null;
            /**
             * Format: int32
             * @description 1 AMEX, 2 MASTERCARD, 3 VISA, 4 DISCOVER, 5 DINERSCLUB, 6 JCB, 7 ACH, 8 WALLET_A, 9 WALLET_B, 10 GATEWAY_X. a closed set, values by number or name; operations 0, 1, 12, 13, 14, 15.
             */
            PaymentMethodTypeId: number | null;
            /**
             * Format: int32
             * @description 1 Pending, 2 Processing, 3 Successful, 4 Failed, 5 Refunded, 6 Cancelled. a closed set, values by number or name; operations 0, 1, 12, 13, 14, 15. Indexed.
             */
            PaymentResult: number;
            /** @description The name of PaymentResult. a closed set, values by number or name; operations 0, 1, 12, 13, 14, 15. Indexed. */
            PaymentResultName: string;
            /** @description The platform's commission. an amount (compared exactly, in cents); operations 0, 1, 5, 6, 9, 10, 11, 12, 13, 14, 15. */
            PlatformCommission: number;
            /**
             * Format: date-time
             * @description When the processor answered (UTC). an instant (UTC), filtered by whole days: values yyyy-MM-dd; operations 0, 1, 7, 8, 16, 17, 5, 6, 9, 10, 11, 14, 15.
             */
            ProcessedDate: string | null;
            /**
             * Format: uuid
             * @description The processor that charged it. a GUID; operations 0, 1, 12, 13, 14, 15.
             */
            ProcessorGuid: string;
            /**
             * Format: int32
             * @description 1 NotProcessed, 2 Authorized, 4 Settled, 5 Rejected, 6 RefundRequired, 7 AwaitingRefund, 8 Refunded, 9 Cancelled, 10 Chargeback, 11 RefundRejected. a closed set, values by number or name; operations 0, 1, 12, 13, 14, 15. Indexed.
             */
            ProcessStatus: number;
            /** @description The name of ProcessStatus. a closed set, values by number or name; operations 0, 1, 12, 13, 14, 15. Indexed. */
            ProcessStatusName: string;
            /**
             * Format: uuid
             * @description The recurring profile that made it. a GUID; operations 0, 1, 12, 13, 14, 15. Indexed.
             */
            RecurringProfileGuid: string | null;
            /**
             * Format: int32
             * @description The recurring profile's number. a whole number; operations 0, 1, 5, 6, 9, 10, 11, 12, 13, 14, 15. Indexed.
             */
            RecurringProfileId: number | null;
            /** @description The amount refunded. an amount (compared exactly, in cents); operations 0, 1, 5, 6, 9, 10, 11, 12, 13, 14, 15. */
            RefundedAmount: number | null;
            /**
             * Format: date-time
             * @description When the refund was approved (UTC). an instant (UTC), filtered by whole days: values yyyy-MM-dd; operations 0, 1, 7, 8, 16, 17, 5, 6, 9, 10, 11, 14, 15. Indexed.
             */
            RefundedDate: string | null;
            /** @description The gateway's response code (0 approved). text (Equals and In exact; Contains, StartsWith and EndsWith ignore letter case); operations 0, 1, 2, 3, 4, 12, 13, 14, 15. */
            ResponseCode: string;
            /** @description The response message. text (Equals and In exact; Contains, StartsWith and EndsWith ignore letter case); operations 0, 1, 2, 3, 4, 12, 13, 14, 15. */
            ResponseMessage: string | null;
            /**
             * Format: int32
             * @description The number of its settlement batch. a whole number; operations 0, 1, 5, 6, 9, 10, 11, 12, 13, 14, 15. Indexed.
             */
            SettlementBatch: number | null;
            /**
             * Format: date-time
             * @description When the payment settled (UTC). an instant (UTC), filtered by whole days: values yyyy-MM-dd; operations 0, 1, 7, 8, 16, 17, 5, 6, 9, 10, 11, 14, 15. Indexed.
             */
            SettlementDate: string | null;
            /** @description The shipping fee charged. an amount (compared exactly, in cents); operations 0, 1, 5, 6, 9, 10, 11, 12, 13, 14, 15. */
            ShippingFee: number | null;
            /** @description The surcharge charged. an amount (compared exactly, in cents); operations 0, 1, 5, 6, 9, 10, 11, 12, 13, 14, 15. */
            Surcharge: number | null;
            /** @description The lines' taxes. an amount (compared exactly, in cents); operations 0, 1, 5, 6, 9, 10, 11, 12, 13, 14, 15. */
            TaxAmount: number;
            /** @description The lines' tips. an amount (compared exactly, in cents); operations 0, 1, 5, 6, 9, 10, 11, 12, 13, 14, 15. */
            TipAmount: number;
            /** @description What the payer was charged. an amount (compared exactly, in cents); operations 0, 1, 5, 6, 9, 10, 11, 12, 13, 14, 15. Indexed. */
            TotalAmount: number;
            /** @description Partner and platform commissions. an amount (compared exactly, in cents); operations 0, 1, 5, 6, 9, 10, 11, 12, 13, 14, 15. */
            TotalCommission: number;
            /** @description Every fee and commission of the lines (TotalFees of the lines' fee breakdowns). an amount (compared exactly, in cents); operations 0, 1, 5, 6, 9, 10, 11, 12, 13, 14, 15. */
            TotalFees: number;
            /** @description The partner's TranId. text (Equals and In exact; Contains, StartsWith and EndsWith ignore letter case); operations 0, 1, 2, 3, 4, 12, 13, 14, 15. Indexed. */
            TranId: string | null;
            /** @description The amount voided. an amount (compared exactly, in cents); operations 0, 1, 5, 6, 9, 10, 11, 12, 13, 14, 15. */
            VoidedAmount: number | null;
            /**
             * Format: date-time
             * @description When the void was approved (UTC). an instant (UTC), filtered by whole days: values yyyy-MM-dd; operations 0, 1, 7, 8, 16, 17, 5, 6, 9, 10, 11, 14, 15. Indexed.
             */
            VoidedDate: string | null;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    searchCharities: {
        parameters: {
            query?: {
                /** @description 1 US (IRS, the default), 2 Canada (CRA) */
                CharitySource?: number;
                /** @description City of the charity address (whole name, case- and accent-insensitive) */
                City?: string;
                /** @description US EIN (12-3456789 or 123456789) or Canadian business number (123456789RR0001, or its first 9 digits) */
                EIN?: string;
                /** @description Partial or full charity name: case- and accent-insensitive, matched by word prefixes, tolerant of typos */
                Name?: string;
                /** @description Page of results, from 1 */
                PageIndex?: number;
                /** @description Results per page, 1-100 */
                PageSize?: number;
                /** @description One SearchResults field: CharityId, NpoName, EIN, Address1, Address2, City, State, Zip, Country, NpoEligibilityFlag, ParentOrgName, NTEEcode. Default NpoName; a Name search without SortColumn lists the best matches first. */
                SortColumn?: string;
                /** @description true orders by descending values */
                SortDesc?: boolean;
                /** @description Two-letter state or province code */
                State?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    /** @description Requests this client may send in the window. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: int32 */
                        PageIndex: number;
                        /** Format: int32 */
                        PageSize: number;
                        SearchResults: {
                            Address1: string | null;
                            Address2: string | null;
                            /**
                             * Format: uuid
                             * @description Stable identifier of the charity (use it as CharityId in payments and fees)
                             */
                            CharityId: string;
                            City: string | null;
                            Country: string | null;
                            /** @description US EIN as XX-XXXXXXX, or the Canadian business number #########RR#### */
                            EIN: string;
                            /** @description Donations are deductible and the organization is in good standing */
                            NpoEligibilityFlag: boolean;
                            NpoName: string;
                            NTEEcode: string | null;
                            ParentOrgName: string | null;
                            State: string | null;
                            Zip: string | null;
                        }[];
                        /** Format: int32 */
                        TotalPages: number;
                        /** Format: int32 */
                        TotalResultCount: number;
                    };
                };
            };
            /** @description No criterion, a bad EIN, paging value or SortColumn. */
            400: {
                headers: {
                    /** @description Requests this client may send in the window. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BrokenRule"][];
                };
            };
            /** @description No data found. */
            404: {
                headers: {
                    /** @description Requests this client may send in the window. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Too many requests from this client. */
            429: {
                headers: {
                    /** @description Seconds until the limit resets. */
                    "Retry-After"?: number;
                    /** @description Requests this client may send in the window. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Internal error; nothing internal is revealed. */
            500: {
                headers: {
                    /** @description Requests this client may send in the window. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The service cannot reach its database: nothing was done; the call can be repeated (a payment with the same TranId meets the duplicate check). */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    /** @description Requests this client may send in the window. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    createClientSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json-patch+json": {
                    /**
                     * Format: uuid
                     * @description Unique identifier of the API partner
                     */
                    ClientId: string;
                    /** @description Paired with ClientId */
                    ClientSecret: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    /** @description Requests this client may send in the window. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        ClientId: string;
                        /**
                         * Format: date-time
                         * @description Always 5 hours after the response is sent
                         */
                        ExpirationDate: string;
                        /** @description The access token used for every other call */
                        Token: string | null;
                    };
                };
            };
            /** @description Invalid body, or the credentials do not authenticate. */
            400: {
                headers: {
                    /** @description Requests this client may send in the window. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BrokenRule"][];
                };
            };
            /** @description The body is larger than 1 MiB. */
            413: {
                headers: {
                    /** @description Requests this client may send in the window. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The content type is not a JSON type, or the body is compressed. */
            415: {
                headers: {
                    /** @description Requests this client may send in the window. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Too many requests from this client. */
            429: {
                headers: {
                    /** @description Seconds until the limit resets. */
                    "Retry-After"?: number;
                    /** @description Requests this client may send in the window. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Internal error; nothing internal is revealed. */
            500: {
                headers: {
                    /** @description Requests this client may send in the window. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The service cannot reach its database: nothing was done; the call can be repeated (a payment with the same TranId meets the duplicate check). */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    /** @description Requests this client may send in the window. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    exportOrganizationTransactionsReport: {
        parameters: {
            query: {
                /** @description One of the partner's organizations. */
                OrganizationGuid: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json-patch+json": {
                    /** @description Required; may be empty. A payment is in the report when it passes every filter. At most 1000 values in all. */
                    Filters: {
                        /** @description A field of the report row (any letter case): PaymentId, PaymentGuid, PaymentDate, ProcessedDate, TranId, PaymentExternalId, AuthCode, PaymentMethod, PaymentMethodTypeId, PaymentMethodType, CardType, CardLastFour, CheckAccountLastFour, Currency, Amount, TipAmount, TaxAmount, ShippingFee, Surcharge, TotalAmount, TotalFees, TotalCommission, PartnerCommission, PlatformCommission, NetAmount, ProcessStatus, ProcessStatusName, PaymentResult, PaymentResultName, ResponseCode, ResponseMessage, SettlementDate, SettlementBatch, RefundedAmount, RefundedDate, VoidedAmount, VoidedDate, ProcessorGuid, IntegrationSourceGuid, IntegrationSourceName, OrganizationGuid, OrganizationName, CharityId, CharityName, RecurringProfileGuid, RecurringProfileId, BillDate, PayLinkId, FirstName, LastName, EmailAddress, ExternalConstituentId. */
                        Name: string;
                        /**
                         * Format: int32
                         * @description 0 Equals, 1 NotEquals, 2 Contains, 3 StartsWith, 4 EndsWith, 5 GreaterThan, 6 LessThan, 7 After, 8 Before, 9 GreaterThanOrEqual, 10 LessThanOrEqual, 11 Between, 12 In, 13 NotIn, 14 IsNull, 15 IsNotNull, 16 OnOrAfter, 17 OnOrBefore. Which a field takes depends on its type (the row's field descriptions). Dates are whole days of UTC: 7 After 2026-01-01 is from 2026-01-02 00:00 UTC on; Equals, Between and the others alike. NotEquals and NotIn keep payments without a value.
                         * @enum {integer}
                         */
                        Operation: 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11 | 12 | 13 | 14 | 15 | 16 | 17;
                        /** @description The values compared with: one for most operations, two for Between (lower first), one to 100 for In and NotIn, none for IsNull and IsNotNull. */
                        Values?: string[];
                    }[];
                    /**
                     * @description csv (the default) or excel, in any letter case. Exports are not paged: every payment of the report.
                     * @example csv
                     * @example excel
                     */
                    Format?: string;
                    /** @description Default PaymentDate descending. PaymentId, in the direction of the first column, breaks ties. */
                    SortColumns?: {
                        /** @description Default false (ascending). Payments without a value come last ascending, first descending. */
                        Descending?: boolean;
                        /** @description A field of the report row. */
                        Name: string;
                        /**
                         * Format: int32
                         * @description Which column sorts first (lowest first); required when there are several.
                         */
                        Order?: number;
                    }[];
                };
            };
        };
        responses: {
            /** @description The file, streamed: CSV (RFC 4180, UTF-8, a header row of the field names) or Excel (.xlsx). Cells that begin with =, +, -, @, a tab or a carriage return start with an apostrophe. */
            200: {
                headers: {
                    /** @description attachment; filename="transactions-....csv" (or .xlsx) */
                    "Content-Disposition"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": string;
                    "text/csv": string;
                };
            };
            /** @description Validation failed: one BrokenRule per broken field or rule. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BrokenRule"][];
                };
            };
            /** @description The AccessToken header is missing, unknown or expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The integration source or organization is not one of the partner's (or does not exist). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The content type is not a JSON type, or the body is compressed. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Internal error; nothing internal is revealed. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The service cannot reach its database: nothing was done; the call can be repeated (a payment with the same TranId meets the duplicate check). */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    exportSourceTransactionsReport: {
        parameters: {
            query?: {
                /** @description One of the partner's integration sources (repeat the parameter for several). Default: every payment of the partner. */
                IntegrationSource?: string[];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json-patch+json": {
                    /** @description Required; may be empty. A payment is in the report when it passes every filter. At most 1000 values in all. */
                    Filters: {
                        /** @description A field of the report row (any letter case): PaymentId, PaymentGuid, PaymentDate, ProcessedDate, TranId, PaymentExternalId, AuthCode, PaymentMethod, PaymentMethodTypeId, PaymentMethodType, CardType, CardLastFour, CheckAccountLastFour, Currency, Amount, TipAmount, TaxAmount, ShippingFee, Surcharge, TotalAmount, TotalFees, TotalCommission, PartnerCommission, PlatformCommission, NetAmount, ProcessStatus, ProcessStatusName, PaymentResult, PaymentResultName, ResponseCode, ResponseMessage, SettlementDate, SettlementBatch, RefundedAmount, RefundedDate, VoidedAmount, VoidedDate, ProcessorGuid, IntegrationSourceGuid, IntegrationSourceName, OrganizationGuid, OrganizationName, CharityId, CharityName, RecurringProfileGuid, RecurringProfileId, BillDate, PayLinkId, FirstName, LastName, EmailAddress, ExternalConstituentId. */
                        Name: string;
                        /**
                         * Format: int32
                         * @description 0 Equals, 1 NotEquals, 2 Contains, 3 StartsWith, 4 EndsWith, 5 GreaterThan, 6 LessThan, 7 After, 8 Before, 9 GreaterThanOrEqual, 10 LessThanOrEqual, 11 Between, 12 In, 13 NotIn, 14 IsNull, 15 IsNotNull, 16 OnOrAfter, 17 OnOrBefore. Which a field takes depends on its type (the row's field descriptions). Dates are whole days of UTC: 7 After 2026-01-01 is from 2026-01-02 00:00 UTC on; Equals, Between and the others alike. NotEquals and NotIn keep payments without a value.
                         * @enum {integer}
                         */
                        Operation: 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11 | 12 | 13 | 14 | 15 | 16 | 17;
                        /** @description The values compared with: one for most operations, two for Between (lower first), one to 100 for In and NotIn, none for IsNull and IsNotNull. */
                        Values?: string[];
                    }[];
                    /**
                     * @description csv (the default) or excel, in any letter case. Exports are not paged: every payment of the report.
                     * @example csv
                     * @example excel
                     */
                    Format?: string;
                    /** @description Default PaymentDate descending. PaymentId, in the direction of the first column, breaks ties. */
                    SortColumns?: {
                        /** @description Default false (ascending). Payments without a value come last ascending, first descending. */
                        Descending?: boolean;
                        /** @description A field of the report row. */
                        Name: string;
                        /**
                         * Format: int32
                         * @description Which column sorts first (lowest first); required when there are several.
                         */
                        Order?: number;
                    }[];
                };
            };
        };
        responses: {
            /** @description The file, streamed: CSV (RFC 4180, UTF-8, a header row of the field names) or Excel (.xlsx). Cells that begin with =, +, -, @, a tab or a carriage return start with an apostrophe. */
            200: {
                headers: {
                    /** @description attachment; filename="transactions-....csv" (or .xlsx) */
                    "Content-Disposition"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": string;
                    "text/csv": string;
                };
            };
            /** @description Validation failed: one BrokenRule per broken field or rule. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BrokenRule"][];
                };
            };
            /** @description The AccessToken header is missing, unknown or expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The integration source or organization is not one of the partner's (or does not exist). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The content type is not a JSON type, or the body is compressed. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Internal error; nothing internal is revealed. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The service cannot reach its database: nothing was done; the call can be repeated (a payment with the same TranId meets the duplicate check). */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    getFee: {
        parameters: {
            query: {
                /**
                 * @description Line amount: digits with at most 2 decimals.
                 * @example 100.00
                 */
                Amount: string;
                /** @description Card processing fee percentage replacing the contract card rate, 0 <= x < 100, at most 4 decimals. Not used for ACH. */
                CardProcessingFeeOverride?: string;
                /** @description A charity of the directory. */
                CharityId?: string;
                /** @description Total commission percentage wanted (at most 4 decimals). Clamped into [platform rate, maximum rate] of the contract; omitted means the maximum. */
                CommissionRateOverride?: string;
                /** @description Another name of PaymentMethodTypeId. */
                CreditCardTypeId?: string;
                /** @description One of the partner's integration sources (internal use). */
                IntegrationSourceGuid?: string;
                /** @description One of the partner's organizations (internal use). */
                OrganizationGuid?: string;
                /** @description The payer covers the fees. */
                PayFee: boolean;
                /** @description PaymentMethodTypeId: 1 AMEX, 2 MASTERCARD, 3 VISA, 4 DISCOVER, 5 DINERSCLUB, 6 JCB, 7 ACH. Decides the card-type fee, or ACH fees for 7. */
                PaymentMethodTypeId?: string;
                /** @description One of the partner's processors. */
                ProcessorGuid?: string;
                /** @description Tax amount, added to the total charged; fees include it. */
                Tax?: string;
                /** @description Amount for the API partner, added to the total charged; fees include it. */
                Tip?: string;
                /** @description One of the partner's tokens; its card brand decides the card-type fee. Not with PaymentMethodTypeId. */
                TokenGuid?: string;
                /**
                 * @description Fee category 1-12.
                 * @example 1
                 */
                TransactionSourceGroupId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FeeBreakdown"];
                };
            };
            /** @description Validation failed: one BrokenRule per broken field or rule. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BrokenRule"][];
                };
            };
            /** @description The AccessToken header is missing, unknown or expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No data found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Internal error; nothing internal is revealed. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The service cannot reach its database: nothing was done; the call can be repeated (a payment with the same TranId meets the duplicate check). */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    calculateFees: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json-patch+json": {
                    /**
                     * Format: uuid
                     * @description A charity of the directory.
                     */
                    CharityId?: string;
                    /** @description Another name of PaymentMethodTypeId. */
                    CreditCardTypeId?: string;
                    /**
                     * Format: uuid
                     * @description One of the partner's integration sources (internal use).
                     */
                    IntegrationSourceGuid?: string;
                    /**
                     * Format: uuid
                     * @description One of the partner's organizations (internal use).
                     */
                    OrganizationGuid?: string;
                    /** @description PaymentMethodTypeId: 1 AMEX, 2 MASTERCARD, 3 VISA, 4 DISCOVER, 5 DINERSCLUB, 6 JCB, 7 ACH. Decides the card-type fee, or ACH fees for 7. Applies to every line. */
                    PaymentMethodTypeId?: string;
                    /**
                     * Format: uuid
                     * @description One of the partner's processors.
                     */
                    ProcessorGuid?: string;
                    /** @description One of the partner's tokens; its card brand decides the card-type fee. Not with PaymentMethodTypeId. */
                    TokenGuid?: string;
                    Transactions: {
                        /**
                         * @description Line amount: digits with at most 2 decimals, greater than 0, at most 9999999999.99.
                         * @example 100.00
                         */
                        Amount: string;
                        /** @description Card processing fee percentage replacing the contract card rate, 0 <= x < 100, at most 4 decimals. Not used for ACH. */
                        CardProcessingFeeOverride?: string;
                        /** @description Total commission percentage wanted (at most 4 decimals). Clamped into [platform rate, maximum rate] of the contract; omitted means the maximum. */
                        CommissionRateOverride?: string;
                        /** @description Caller's line reference. */
                        ExternalLineId?: string;
                        /** @description The payer covers the fees (default false). */
                        PayFee?: boolean;
                        /** @description Tax amount, added to the total charged; fees include it. */
                        Tax?: string;
                        /** @description Amount for the API partner, added to the total charged; fees include it. */
                        Tip?: string;
                        /**
                         * @description Fee category, 1-12 (see the spec table); a for-profit partner uses 12, a non-profit partner 1-11.
                         * @example 1
                         */
                        TransactionSourceGroupId: string;
                    }[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Sum of the TotalFees of the lines. */
                        TotalFeesAmount: number;
                        /** @description Sum of the PaymentAmount of the lines. */
                        TotalPaymentAmount: number;
                        /** @description Sum of the Tax of the lines. */
                        TotalTaxAmount: number;
                        /** @description One fee breakdown per line, in the order of Transactions. */
                        TransactionFees: components["schemas"]["FeeBreakdown"][];
                    };
                };
            };
            /** @description Validation failed: one BrokenRule per broken field or rule. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BrokenRule"][];
                };
            };
            /** @description The AccessToken header is missing, unknown or expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No data found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The content type is not a JSON type, or the body is compressed. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Internal error; nothing internal is revealed. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The service cannot reach its database: nothing was done; the call can be repeated (a payment with the same TranId meets the duplicate check). */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    getNextBillDate: {
        parameters: {
            query: {
                /**
                 * @description One of Daily, Weekly, Bi-Weekly, Monthly, Bi-Monthly, Semi-Monthly, Quarterly, Semi-Annually, Annually (any letter case).
                 * @example Monthly
                 */
                BillingFrequency: string;
                /**
                 * @description The date to count from, yyyy-MM-dd; its day of the month is the anchor of month steps.
                 * @example 2026-11-21
                 */
                Date: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * @description The first billing date after Date, at midnight (no time zone: a calendar date).
                         * @example 2026-12-21T00:00:00
                         */
                        NextBillDate: string;
                    };
                };
            };
            /** @description Validation failed: one BrokenRule per broken field or rule. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BrokenRule"][];
                };
            };
            /** @description The AccessToken header is missing, unknown or expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No data found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Internal error; nothing internal is revealed. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The service cannot reach its database: nothing was done; the call can be repeated (a payment with the same TranId meets the duplicate check). */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    getNotificationConfig: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        NotificationConfigs: {
                            AccessToken: string | null;
                            /** Format: date-time */
                            CreatedDate: string;
                            IsDeleted: boolean;
                            /** @description An operator paused it: its notifications wait. */
                            IsPaused: boolean;
                            /** Format: date-time */
                            ModifiedDate: string;
                            /** Format: int32 */
                            NotificationConfigId: number;
                            NotificationConfigurationTypeId: string;
                            NotificationProtocolTypeId: string;
                            NotificationUrl: string;
                            Retries: number;
                        }[];
                    };
                };
            };
            /** @description Validation failed: one BrokenRule per broken field or rule. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BrokenRule"][];
                };
            };
            /** @description The AccessToken header is missing, unknown or expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Internal error; nothing internal is revealed. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The service cannot reach its database: nothing was done; the call can be repeated (a payment with the same TranId meets the duplicate check). */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    putNotificationConfig: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1 to 255 printable ASCII characters (a UUID is recommended), or the same as a quoted string ("..."). A repeated request with the key and the same request (method, path, query, body) gets the first answer, byte for byte, with Idempotent-Replayed: true, and does nothing else; another request with the key is 422; while the first runs, 409 with Retry-After. Keys are kept 24 hours (IDEMPOTENCY_TTL), per partner. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json-patch+json": {
                    NotificationConfigs: {
                        AccessToken?: string | null;
                        /** @description true removes the config named by NotificationConfigId; its notifications not yet sent are cancelled. */
                        IsDeleted?: boolean;
                        /**
                         * Format: int32
                         * @description One of your configs, to change it (or remove it with IsDeleted); absent: a new config.
                         */
                        NotificationConfigId?: number;
                        /**
                         * @description Always "1" (payment status).
                         * @example 1
                         */
                        NotificationConfigurationTypeId: string;
                        /**
                         * @description "1": web (an HTTP POST of JSON). "2" (e-mail) is not supported (400).
                         * @example 1
                         */
                        NotificationProtocolTypeId: string;
                        /** @description Absolute https URL (http only outside production), at most 500 characters, no credentials, not a private address. */
                        NotificationUrl?: string;
                        /** @description How many times a failed notification is tried again: 0 to 20, default 10. */
                        Retries?: number;
                    }[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    /** @description "true" when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        NotificationConfigs: {
                            AccessToken: string | null;
                            /** Format: date-time */
                            CreatedDate: string;
                            IsDeleted: boolean;
                            /** @description An operator paused it: its notifications wait. */
                            IsPaused: boolean;
                            /** Format: date-time */
                            ModifiedDate: string;
                            /** Format: int32 */
                            NotificationConfigId: number;
                            NotificationConfigurationTypeId: string;
                            NotificationProtocolTypeId: string;
                            NotificationUrl: string;
                            Retries: number;
                        }[];
                    };
                };
            };
            /** @description Validation failed: one BrokenRule per broken field or rule. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BrokenRule"][];
                };
            };
            /** @description The AccessToken header is missing, unknown or expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description A request with this Idempotency-Key is still running (with Retry-After: send it again then), or stopped without an answer (without Retry-After: it is not run again). */
            409: {
                headers: {
                    /** @description Seconds to wait before sending the request again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The content type is not a JSON type, or the body is compressed. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description This Idempotency-Key was used for another request. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Internal error; nothing internal is revealed. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The service cannot reach its database: nothing was done; the call can be repeated (a payment with the same TranId meets the duplicate check). */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    redeliverNotifications: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1 to 255 printable ASCII characters (a UUID is recommended), or the same as a quoted string ("..."). A repeated request with the key and the same request (method, path, query, body) gets the first answer, byte for byte, with Idempotent-Replayed: true, and does nothing else; another request with the key is 422; while the first runs, 409 with Retry-After. Keys are kept 24 hours (IDEMPOTENCY_TTL), per partner. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json-patch+json": {
                    NotificationIds: number[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    /** @description "true" when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Still on their way (pending or waiting), or cancelled. */
                        NotRedelivered: {
                            /** Format: int64 */
                            NotificationId: number;
                            Reason: string;
                        }[];
                        /** @description Due again now, with RetryCount 0. */
                        Redelivered: {
                            /** Format: date-time */
                            CreatedDate: string;
                            DeliveredDate: string | null;
                            LastError: string | null;
                            LastStatusCode: number | null;
                            /** Format: date-time */
                            ModifiedDate: string;
                            NextAttemptDate: string | null;
                            /** Format: int32 */
                            NotificationConfigId: number;
                            /**
                             * Format: uuid
                             * @description Sent as the Payments-Event-Id header: the same on every attempt and redelivery.
                             */
                            NotificationGuid: string;
                            /** Format: int64 */
                            NotificationId: number;
                            NotificationUrl: string;
                            Payload: string | null;
                            PaymentExternalId: string | null;
                            /** Format: int32 */
                            PaymentId: number;
                            /** @description Retries made. */
                            RetryCount: number;
                            /**
                             * @description Pending: due or being retried; Failed: retries spent; Cancelled: its config was removed.
                             * @enum {string}
                             */
                            Status: "Waiting" | "Pending" | "Delivered" | "Failed" | "Cancelled";
                        }[];
                    };
                };
            };
            /** @description Validation failed: one BrokenRule per broken field or rule. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BrokenRule"][];
                };
            };
            /** @description The AccessToken header is missing, unknown or expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No data found. */
            404: {
                headers: {
                    /** @description "true" when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description A request with this Idempotency-Key is still running (with Retry-After: send it again then), or stopped without an answer (without Retry-After: it is not run again). */
            409: {
                headers: {
                    /** @description Seconds to wait before sending the request again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The content type is not a JSON type, or the body is compressed. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description This Idempotency-Key was used for another request. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Internal error; nothing internal is revealed. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The service cannot reach its database: nothing was done; the call can be repeated (a payment with the same TranId meets the duplicate check). */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    getNotifications: {
        parameters: {
            query?: {
                /** @description PaymentExternalId (the payment's TransactionId). */
                paymentExternalId?: string;
                /** @description PaymentId. */
                paymentId?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        CreatedDate: string;
                        DeliveredDate: string | null;
                        LastError: string | null;
                        LastStatusCode: number | null;
                        /** Format: date-time */
                        ModifiedDate: string;
                        NextAttemptDate: string | null;
                        /** Format: int32 */
                        NotificationConfigId: number;
                        /**
                         * Format: uuid
                         * @description Sent as the Payments-Event-Id header: the same on every attempt and redelivery.
                         */
                        NotificationGuid: string;
                        /** Format: int64 */
                        NotificationId: number;
                        NotificationUrl: string;
                        Payload: string | null;
                        PaymentExternalId: string | null;
                        /** Format: int32 */
                        PaymentId: number;
                        /** @description Retries made. */
                        RetryCount: number;
                        /**
                         * @description Pending: due or being retried; Failed: retries spent; Cancelled: its config was removed.
                         * @enum {string}
                         */
                        Status: "Waiting" | "Pending" | "Delivered" | "Failed" | "Cancelled";
                    }[];
                };
            };
            /** @description Validation failed: one BrokenRule per broken field or rule. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BrokenRule"][];
                };
            };
            /** @description The AccessToken header is missing, unknown or expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No data found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Internal error; nothing internal is revealed. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The service cannot reach its database: nothing was done; the call can be repeated (a payment with the same TranId meets the duplicate check). */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    getNotificationSecret: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        CreatedDate: string;
                        PreviousSecretExpiresDate: string | null;
                        /** @description The new secret: answered this once, never again. */
                        SigningSecret?: string;
                    };
                };
            };
            /** @description Validation failed: one BrokenRule per broken field or rule. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BrokenRule"][];
                };
            };
            /** @description The AccessToken header is missing, unknown or expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No data found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Internal error; nothing internal is revealed. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The service cannot reach its database: nothing was done; the call can be repeated (a payment with the same TranId meets the duplicate check). */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    rotateNotificationSecret: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        CreatedDate: string;
                        PreviousSecretExpiresDate: string | null;
                        /** @description The new secret: answered this once, never again. */
                        SigningSecret?: string;
                    };
                };
            };
            /** @description Validation failed: one BrokenRule per broken field or rule. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BrokenRule"][];
                };
            };
            /** @description The AccessToken header is missing, unknown or expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The content type is not a JSON type, or the body is compressed. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Internal error; nothing internal is revealed. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The service cannot reach its database: nothing was done; the call can be repeated (a payment with the same TranId meets the duplicate check). */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    testNotification: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json-patch+json": {
                    AccessToken?: string;
                    /** @description The JSON sent, as it is; default {}. */
                    Payload?: unknown;
                    Url: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The receiver answered 2xx within NOTIFICATION_TIMEOUT. */
                        Delivered: boolean;
                        ElapsedMs: number;
                        Error: string | null;
                        StatusCode: number | null;
                    };
                };
            };
            /** @description Validation failed: one BrokenRule per broken field or rule. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BrokenRule"][];
                };
            };
            /** @description The AccessToken header is missing, unknown or expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The content type is not a JSON type, or the body is compressed. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Internal error; nothing internal is revealed. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The service cannot reach its database: nothing was done; the call can be repeated (a payment with the same TranId meets the duplicate check). */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    organizationTransactionsReport: {
        parameters: {
            query: {
                /** @description One of the partner's organizations. */
                OrganizationGuid: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json-patch+json": {
                    /** @description Required; may be empty. A payment is in the report when it passes every filter. At most 1000 values in all. */
                    Filters: {
                        /** @description A field of the report row (any letter case): PaymentId, PaymentGuid, PaymentDate, ProcessedDate, TranId, PaymentExternalId, AuthCode, PaymentMethod, PaymentMethodTypeId, PaymentMethodType, CardType, CardLastFour, CheckAccountLastFour, Currency, Amount, TipAmount, TaxAmount, ShippingFee, Surcharge, TotalAmount, TotalFees, TotalCommission, PartnerCommission, PlatformCommission, NetAmount, ProcessStatus, ProcessStatusName, PaymentResult, PaymentResultName, ResponseCode, ResponseMessage, SettlementDate, SettlementBatch, RefundedAmount, RefundedDate, VoidedAmount, VoidedDate, ProcessorGuid, IntegrationSourceGuid, IntegrationSourceName, OrganizationGuid, OrganizationName, CharityId, CharityName, RecurringProfileGuid, RecurringProfileId, BillDate, PayLinkId, FirstName, LastName, EmailAddress, ExternalConstituentId. */
                        Name: string;
                        /**
                         * Format: int32
                         * @description 0 Equals, 1 NotEquals, 2 Contains, 3 StartsWith, 4 EndsWith, 5 GreaterThan, 6 LessThan, 7 After, 8 Before, 9 GreaterThanOrEqual, 10 LessThanOrEqual, 11 Between, 12 In, 13 NotIn, 14 IsNull, 15 IsNotNull, 16 OnOrAfter, 17 OnOrBefore. Which a field takes depends on its type (the row's field descriptions). Dates are whole days of UTC: 7 After 2026-01-01 is from 2026-01-02 00:00 UTC on; Equals, Between and the others alike. NotEquals and NotIn keep payments without a value.
                         * @enum {integer}
                         */
                        Operation: 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11 | 12 | 13 | 14 | 15 | 16 | 17;
                        /** @description The values compared with: one for most operations, two for Between (lower first), one to 100 for In and NotIn, none for IsNull and IsNotNull. */
                        Values?: string[];
                    }[];
                    /**
                     * Format: int32
                     * @description The page, from 1 (0 is the first page too). A page past the end is empty.
                     */
                    PageIndex?: number;
                    /**
                     * Format: int32
                     * @description Rows per page, 1-1000; default 50.
                     */
                    PageSize?: number;
                    /** @description Default PaymentDate descending. PaymentId, in the direction of the first column, breaks ties. */
                    SortColumns?: {
                        /** @description Default false (ascending). Payments without a value come last ascending, first descending. */
                        Descending?: boolean;
                        /** @description A field of the report row. */
                        Name: string;
                        /**
                         * Format: int32
                         * @description Which column sorts first (lowest first); required when there are several.
                         */
                        Order?: number;
                    }[];
                };
            };
        };
        responses: {
            /** @description One page of the report, with the total count. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TransactionReportDetails"];
                };
            };
            /** @description Validation failed: one BrokenRule per broken field or rule. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BrokenRule"][];
                };
            };
            /** @description The AccessToken header is missing, unknown or expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The integration source or organization is not one of the partner's (or does not exist). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The content type is not a JSON type, or the body is compressed. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Internal error; nothing internal is revealed. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The service cannot reach its database: nothing was done; the call can be repeated (a payment with the same TranId meets the duplicate check). */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    createPayLink: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1 to 255 printable ASCII characters (a UUID is recommended), or the same as a quoted string ("..."). A repeated request with the key and the same request (method, path, query, body) gets the first answer, byte for byte, with Idempotent-Replayed: true, and does nothing else; another request with the key is 422; while the first runs, 409 with Retry-After. Keys are kept 24 hours (IDEMPOTENCY_TTL), per partner. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json-patch+json": {
                    /** @description The partner's pay-link API key (issued with its credentials). */
                    ApiKey: string;
                    City?: string;
                    Country?: string;
                    /** @description Country preselected on the form. */
                    DefaultCountryCode?: string;
                    /** @description Submit button text; default "Submit Payment" (translated). */
                    DonateButtonText?: string;
                    Email?: string;
                    /** @description A CcInfoKey the page offers to pay with. */
                    ExternalCardToken?: string;
                    /** @description A CheckInfoKey the page offers to pay with. */
                    ExternalCheckToken?: string;
                    /** @description The partner's customer id; required for WorkflowType 3 and 4. */
                    ExternalConstituentId?: string;
                    ExternalCustomerId?: string;
                    ExternalEventId?: string;
                    ExternalEventName?: string;
                    FirstName?: string;
                    /**
                     * Format: uuid
                     * @description internal use
                     */
                    IntegrationSource?: string;
                    /** @description The payer's IP for the payment; default: the browser's address. */
                    IpAddress?: string;
                    /** @description en (default), fr or es; regional forms (fr-CA) use their language, others English. */
                    Language?: string;
                    LastName?: string;
                    /** @description Required for a payment link; empty for WorkflowType 3 and 4. */
                    PaymentLines?: {
                        /**
                         * @description Line amount: digits with at most 2 decimals, greater than 0.
                         * @example 25.00
                         */
                        Amount: string;
                        /** @description Caller's line reference. */
                        ExternalLineId?: string;
                        /** @description Extension: the payer covers the processing fees of this line (default false). */
                        PayFee?: boolean;
                        /** @description 0 (or absent) one-time; 1 Daily, 2 Weekly, 3 Bi-Weekly, 4 Monthly, 5 Bi-Monthly, 6 Quarterly, 7 Semi-Annually, 8 Annually, 9 Semi-Monthly. A link with a recurring line has exactly one line; the page stores the payment method and starts a recurring profile after the first payment. */
                        Recurring?: number;
                        /**
                         * @description The line's TransactionSourceGroupId, 1-12 (a for-profit partner uses 12).
                         * @example 1
                         */
                        Type: number;
                    }[];
                    /** @description North American or Australian number. */
                    Phone?: string;
                    /** @description Branding text; default: the integration source name, else the provider name. */
                    PoweredByText?: string;
                    /** @description Branding link; default: the provider's home address. */
                    PoweredByUrl?: string;
                    /**
                     * Format: uuid
                     * @description Processor for the payment; required for a for-profit partner.
                     */
                    ProcessorGuid?: string;
                    /** @description Absolute http(s) URL the payer is sent to after payment, with responseToken. */
                    RedirectUrl: string;
                    /** @description Shows TranId on the page; without TranId the payer may enter one. */
                    ShowTransactionId?: boolean;
                    State?: string;
                    Street?: string;
                    /** @description CSS (up to 5000 characters), sanitized: visual properties only, scoped to the page, no url() or @import. */
                    Theme?: string;
                    /** @description Local font families ("Open Sans:400,700"); nothing is downloaded. */
                    ThemeFonts?: string[];
                    /**
                     * Format: uuid
                     * @description A stored card or bank account the page offers to pay with.
                     */
                    TokenGuid?: string;
                    /** @description Store the card or bank account used. */
                    TokenizeCard?: boolean;
                    /** @description Partner reference or invoice number; duplicate checking applies as for payments. */
                    TranId?: string;
                    /** @description Label of the TranId. */
                    TransactionIdText?: string;
                    /** @description 1 payment (default), 3 store a card without paying, 4 manage saved cards. */
                    WorkflowType?: number;
                    /** @description US, CA, AU formats by Country (or DefaultCountryCode). */
                    Zip?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    /** @description "true" when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        PayLinkUrl: string | null;
                    };
                };
            };
            /** @description Validation failed: one BrokenRule per broken field or rule. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BrokenRule"][];
                };
            };
            /** @description The AccessToken header is missing, unknown or expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description A request with this Idempotency-Key is still running (with Retry-After: send it again then), or stopped without an answer (without Retry-After: it is not run again). */
            409: {
                headers: {
                    /** @description Seconds to wait before sending the request again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The content type is not a JSON type, or the body is compressed. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description This Idempotency-Key was used for another request. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Internal error; nothing internal is revealed. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The service cannot reach its database: nothing was done; the call can be repeated (a payment with the same TranId meets the duplicate check). */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    cancelPayLink: {
        parameters: {
            query: {
                /** @description internal use (ignored) */
                IntegrationSource?: string;
                /** @description The last segment of the PayLinkUrl. */
                PayLinkId: string;
            };
            header?: {
                /** @description 1 to 255 printable ASCII characters (a UUID is recommended), or the same as a quoted string ("..."). A repeated request with the key and the same request (method, path, query, body) gets the first answer, byte for byte, with Idempotent-Replayed: true, and does nothing else; another request with the key is 422; while the first runs, 409 with Retry-After. Keys are kept 24 hours (IDEMPOTENCY_TTL), per partner. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    /** @description "true" when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        PayLinkUrl: string | null;
                    };
                };
            };
            /** @description Validation failed: one BrokenRule per broken field or rule. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BrokenRule"][];
                };
            };
            /** @description The AccessToken header is missing, unknown or expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No data found. */
            404: {
                headers: {
                    /** @description "true" when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description A request with this Idempotency-Key is still running (with Retry-After: send it again then), or stopped without an answer (without Retry-After: it is not run again). */
            409: {
                headers: {
                    /** @description Seconds to wait before sending the request again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The content type is not a JSON type, or the body is compressed. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description This Idempotency-Key was used for another request. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Internal error; nothing internal is revealed. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The service cannot reach its database: nothing was done; the call can be repeated (a payment with the same TranId meets the duplicate check). */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    getPayLinkResult: {
        parameters: {
            query: {
                /** @description The responseToken of the redirect. */
                ResponseToken: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        AddressLine1: string | null;
                        AuthCode: string | null;
                        AVSResponse: string | null;
                        AVSStreetStatus: string | null;
                        AVSZipStatus: string | null;
                        CardNum: string | null;
                        CardType: ("American Express" | "Mastercard" | "Visa" | "Discover" | "Diners Club" | "Undefined") | null;
                        CheckAccountNum: string | null;
                        City: string | null;
                        CountryCode: string | null;
                        Currency: string | null;
                        CVVResponse: string | null;
                        EmailAddress: string | null;
                        EpfSessionId: string | null;
                        ExpMonth: string | null;
                        ExpYear: string | null;
                        ExternalCardToken: string | null;
                        ExternalCheckToken: string | null;
                        ExternalConstituentId: string | null;
                        ExternalCustomerId: string | null;
                        FirstName: string | null;
                        IsSurchargeEligible: boolean | null;
                        LastName: string | null;
                        Message: string | null;
                        /**
                         * Format: uuid
                         * @description internal use; 00000000-0000-0000-0000-000000000000 when the payment has no organization (a for-profit partner's).
                         */
                        OrganizationGuid: string;
                        /** Format: date-time */
                        PaymentDate: string;
                        /** Format: uuid */
                        PaymentGuid: string;
                        /** Format: int32 */
                        PaymentId: number;
                        PaymentMethodTypeId: number | null;
                        /**
                         * Format: int32
                         * @description 1 Pending, 2 Processing, 3 Successful, 4 Failed, 5 Refunded, 6 Cancelled.
                         * @enum {integer}
                         */
                        PaymentResult: 1 | 2 | 3 | 4 | 5 | 6;
                        PostalCode: string | null;
                        ProcessorGuid: string | null;
                        ProcessorMessage: string | null;
                        /**
                         * Format: int32
                         * @description 1 NotProcessed, 2 Authorized, 4 Settled, 5 Rejected, 6 RefundRequired, 7 AwaitingRefund, 8 Refunded, 9 Cancelled, 10 Chargeback, 11 RefundRejected.
                         * @enum {integer}
                         */
                        ProcessStatus: 1 | 2 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11;
                        ProvinceCode: string | null;
                        RecurringProfileGuid: string | null;
                        ResponseCode: string | null;
                        /** @description true only for an approval. */
                        Successful: boolean;
                        TokenGuid: string | null;
                        /** @description Total charged: the lines’ PaymentAmount plus ShippingFee and Surcharge. */
                        TotalAmount: number;
                        TotalSurcharge: number | null;
                        TranId: string | null;
                        TransactionFees: components["schemas"]["FeeBreakdown"][];
                        TransactionId: string | null;
                    };
                };
            };
            /** @description Validation failed: one BrokenRule per broken field or rule. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BrokenRule"][];
                };
            };
            /** @description The AccessToken header is missing, unknown or expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No data found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Internal error; nothing internal is revealed. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The service cannot reach its database: nothing was done; the call can be repeated (a payment with the same TranId meets the duplicate check). */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    createPayment: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1 to 255 printable ASCII characters (a UUID is recommended), or the same as a quoted string ("..."). A repeated request with the key and the same request (method, path, query, body) gets the first answer, byte for byte, with Idempotent-Replayed: true, and does nothing else; another request with the key is 422; while the first runs, 409 with Retry-After. Keys are kept 24 hours (IDEMPOTENCY_TTL), per partner. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json-patch+json": {
                    /** @description Text shown on the bank statement. */
                    BillingDescriptor?: string;
                    /** @description Card number (spaces and dashes ignored); required unless a wallet transaction. */
                    CardNum?: string;
                    /** @description Ignored: set from CardNum. */
                    CardType?: string;
                    /**
                     * Format: uuid
                     * @description Charity GUID from charity search.
                     */
                    CharityId?: string;
                    City?: string;
                    /** @description 2-letter country code. */
                    Country?: string;
                    /** @description 3-letter currency code; default from Country (CAD for CA, AUD for AU, else USD). */
                    Currency?: string;
                    /** @description 3 digits, 4 for American Express. */
                    CVNum?: string;
                    /** @description Payer email address (required). */
                    Email: string;
                    /** @description internal use */
                    EpfSessionId?: string;
                    /** @description Two digits, 01-12; required unless a wallet transaction. */
                    ExpMonth?: string;
                    /** @description Two digits; required unless a wallet transaction. */
                    ExpYear?: string;
                    /** @description Donor identifier per product. */
                    ExternalConstituentId?: string;
                    /** @description Gateway customer key of a pre-existing customer. */
                    ExternalCustomerId?: string;
                    /** Format: uuid */
                    ExternalEventGuid?: string;
                    ExternalEventId?: string;
                    ExternalEventName?: string;
                    /** @description internal use: the wallet payment data. */
                    ExternalPaymentData?: string;
                    FirstName?: string;
                    /**
                     * GwShieldAdditional
                     * @description Fraud-screening data.
                     */
                    GwShieldAdditional?: {
                        BillToPhoneNumber?: string;
                        BillToPremiseForUK?: string;
                        BillToStreetForUK?: string;
                        ProductDescription?: string;
                        ProductItem?: string;
                        ProductQuantity?: string;
                        ProductType?: string;
                        SessionId?: string;
                        ShippingAddressCity?: string;
                        ShippingAddressCountry?: string;
                        ShippingAddressEmail?: string;
                        ShippingAddressName?: string;
                        ShippingAddressState?: string;
                        ShippingAddressStreet1?: string;
                        ShippingAddressStreet2?: string;
                        ShippingAddressZip?: string;
                        ShipToPhoneNumber?: string;
                        ShipToPremiseForUK?: string;
                        ShipToStreetForUK?: string;
                    };
                    /**
                     * Format: uuid
                     * @description internal use: one of the partner's integration sources (default: the partner's default source)
                     */
                    IntegrationSource?: string;
                    /** @description IPv4 or IPv6 address where the transaction originates (required). */
                    IpAddress: string;
                    LastName?: string;
                    /** @description internal use: the processor by its MKey */
                    MKey?: string;
                    NameOnCard: string;
                    /**
                     * Format: uuid
                     * @description internal use
                     */
                    OrganizationGuid?: string;
                    /** @description internal use: 8 wallet A, 9 wallet B. */
                    PaymentMethodTypeId?: string;
                    /**
                     * Format: uuid
                     * @description Optional for a non-profit partner (its default processor); required for a for-profit partner.
                     */
                    ProcessorGuid?: string;
                    /** @description Added to the total amount. */
                    ShippingFee?: string;
                    /** @description 2-letter US state code; up to 3 letters outside the US. */
                    State?: string;
                    Street?: string;
                    /** @description Calculated surcharge added to the total amount. */
                    Surcharge?: string;
                    /** @description Reported only; no calculation uses it. */
                    TaxableBenefit?: string;
                    /** @description true stores the card or bank account and returns its tokens. */
                    Tokenize?: boolean;
                    /** @description Unique id per integration source: with duplicate checking on, a TranId of an earlier successful payment is not processed again. */
                    TranId?: string;
                    /** @description At least one line. */
                    Transactions: {
                        /**
                         * @description Line amount: digits with at most 2 decimals, greater than 0, at most 9999999999.99.
                         * @example 100.00
                         */
                        Amount: string;
                        /** @description Card processing fee percentage replacing the contract card rate, 0 <= x < 100, at most 4 decimals. Not used for ACH. */
                        CardProcessingFeeOverride?: string;
                        /** @description Total commission percentage wanted (at most 4 decimals). Clamped into [platform rate, maximum rate] of the contract; omitted means the maximum. */
                        CommissionRateOverride?: string;
                        /** @description Caller's line reference. */
                        ExternalLineId?: string;
                        /** @description The payer covers the fees (default false). */
                        PayFee?: boolean;
                        /** @description Tax amount, added to the total charged; fees include it. */
                        Tax?: string;
                        /** @description Amount for the API partner, added to the total charged; fees include it. */
                        Tip?: string;
                        /**
                         * @description Fee category, 1-12 (see the spec table); a for-profit partner uses 12, a non-profit partner 1-11.
                         * @example 1
                         */
                        TransactionSourceGroupId: string;
                    }[];
                    /** @description US 12345 or 12345-6789, CA A1A 1A1, AU 1234, by Country; any of the three without Country. */
                    Zip?: string;
                };
            };
        };
        responses: {
            /** @description Every processed attempt, approved or declined (Successful says which). */
            201: {
                headers: {
                    /** @description "true" when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaymentResponse"];
                };
            };
            /** @description Validation failed: one BrokenRule per broken field or rule. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BrokenRule"][];
                };
            };
            /** @description The AccessToken header is missing, unknown or expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description A request with this Idempotency-Key is still running (with Retry-After: send it again then), or stopped without an answer (without Retry-After: it is not run again). */
            409: {
                headers: {
                    /** @description Seconds to wait before sending the request again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The content type is not a JSON type, or the body is compressed. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description This Idempotency-Key was used for another request. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Internal error; nothing internal is revealed. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The service cannot reach its database: nothing was done; the call can be repeated (a payment with the same TranId meets the duplicate check). */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    createAchPayment: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1 to 255 printable ASCII characters (a UUID is recommended), or the same as a quoted string ("..."). A repeated request with the key and the same request (method, path, query, body) gets the first answer, byte for byte, with Idempotent-Replayed: true, and does nothing else; another request with the key is 422; while the first runs, 409 with Retry-After. Keys are kept 24 hours (IDEMPOTENCY_TTL), per partner. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json-patch+json": {
                    /** @description Text shown on the bank statement. */
                    BillingDescriptor?: string;
                    /**
                     * Format: uuid
                     * @description Charity GUID from charity search.
                     */
                    CharityId?: string;
                    /** @description US 8-12 digits, CA 7-12, AU 3-9. */
                    CheckAccountNumber: string;
                    /** @description 1 Checking, 2 Savings. */
                    CheckAccountTypeId: string;
                    CheckNumber?: string;
                    /** @description US 9-digit ABA; CA 0 + 3-digit institution + 5-digit transit; AU 6-digit BSB. */
                    CheckRoutingNumber: string;
                    /** @description 1 Personal, 2 Corporate, 3 Government. */
                    CheckTypeId: string;
                    City?: string;
                    /** @description 2-letter country code. */
                    Country?: string;
                    /** @description 3-letter currency code; default from Country (CAD for CA, AUD for AU, else USD). */
                    Currency?: string;
                    /** @description Payer email address (required). */
                    Email: string;
                    /** @description internal use */
                    EpfSessionId?: string;
                    /** @description Donor identifier per product. */
                    ExternalConstituentId?: string;
                    /** @description Gateway customer key of a pre-existing customer. */
                    ExternalCustomerId?: string;
                    /** Format: uuid */
                    ExternalEventGuid?: string;
                    ExternalEventId?: string;
                    ExternalEventName?: string;
                    FirstName?: string;
                    /**
                     * Format: uuid
                     * @description internal use: one of the partner's integration sources (default: the partner's default source)
                     */
                    IntegrationSource?: string;
                    /** @description IPv4 or IPv6 address where the transaction originates (required). */
                    IpAddress: string;
                    LastName?: string;
                    /** @description internal use: the processor by its MKey */
                    MKey?: string;
                    NameOnCheck: string;
                    /**
                     * Format: uuid
                     * @description internal use
                     */
                    OrganizationGuid?: string;
                    /** @description If sent, 7 (ACH). */
                    PaymentMethodTypeId?: string;
                    /**
                     * Format: uuid
                     * @description Optional for a non-profit partner (its default processor); required for a for-profit partner.
                     */
                    ProcessorGuid?: string;
                    /** @description Added to the total amount. */
                    ShippingFee?: string;
                    /** @description 2-letter US state code; up to 3 letters outside the US. */
                    State: string;
                    Street?: string;
                    /** @description Reported only; no calculation uses it. */
                    TaxableBenefit?: string;
                    /** @description true stores the card or bank account and returns its tokens. */
                    Tokenize?: boolean;
                    /** @description Unique id per integration source: with duplicate checking on, a TranId of an earlier successful payment is not processed again. */
                    TranId?: string;
                    /** @description At least one line. */
                    Transactions: {
                        /**
                         * @description Line amount: digits with at most 2 decimals, greater than 0, at most 9999999999.99.
                         * @example 100.00
                         */
                        Amount: string;
                        /** @description Card processing fee percentage replacing the contract card rate, 0 <= x < 100, at most 4 decimals. Not used for ACH. */
                        CardProcessingFeeOverride?: string;
                        /** @description Total commission percentage wanted (at most 4 decimals). Clamped into [platform rate, maximum rate] of the contract; omitted means the maximum. */
                        CommissionRateOverride?: string;
                        /** @description Caller's line reference. */
                        ExternalLineId?: string;
                        /** @description The payer covers the fees (default false). */
                        PayFee?: boolean;
                        /** @description Tax amount, added to the total charged; fees include it. */
                        Tax?: string;
                        /** @description Amount for the API partner, added to the total charged; fees include it. */
                        Tip?: string;
                        /**
                         * @description Fee category, 1-12 (see the spec table); a for-profit partner uses 12, a non-profit partner 1-11.
                         * @example 1
                         */
                        TransactionSourceGroupId: string;
                    }[];
                    /** @description US 12345 or 12345-6789, CA A1A 1A1, AU 1234, by Country; any of the three without Country. */
                    Zip?: string;
                };
            };
        };
        responses: {
            /** @description Every processed attempt, approved or declined (Successful says which). */
            201: {
                headers: {
                    /** @description "true" when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaymentResponse"];
                };
            };
            /** @description Validation failed: one BrokenRule per broken field or rule. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BrokenRule"][];
                };
            };
            /** @description The AccessToken header is missing, unknown or expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description A request with this Idempotency-Key is still running (with Retry-After: send it again then), or stopped without an answer (without Retry-After: it is not run again). */
            409: {
                headers: {
                    /** @description Seconds to wait before sending the request again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The content type is not a JSON type, or the body is compressed. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description This Idempotency-Key was used for another request. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Internal error; nothing internal is revealed. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The service cannot reach its database: nothing was done; the call can be repeated (a payment with the same TranId meets the duplicate check). */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    listProcessorPaymentMethodTypes: {
        parameters: {
            query?: {
                /** @description The processor by its MKey */
                mKey?: string;
                /** @description The processor; the partner's default when neither this nor mKey is given */
                processorGuid?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Format: int32
                         * @description 0 NONE, 1 AMEX, 2 MASTERCARD, 3 VISA, 4 DISCOVER, 5 DINERSCLUB, 6 JCB, 7 ACH, 8 WALLET_A, 9 WALLET_B, 10 GATEWAY_X
                         */
                        PaymentMethodTypeId: number;
                        PaymentMethodTypeValue: string | null;
                    }[];
                };
            };
            /** @description Validation failed: one BrokenRule per broken field or rule. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BrokenRule"][];
                };
            };
            /** @description The AccessToken header is missing, unknown or expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No data found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Internal error; nothing internal is revealed. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The service cannot reach its database: nothing was done; the call can be repeated (a payment with the same TranId meets the duplicate check). */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    getRecurringProfile: {
        parameters: {
            query: {
                /** @description The profile to read. */
                RecurringProfileGuid: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Amount per bill date (with PayFee: what the first charge was). */
                        Amount: number;
                        /**
                         * @description As the spec spells it, whatever letter case the profile was made with.
                         * @enum {string}
                         */
                        BillingFrequency: "Daily" | "Weekly" | "Bi-Weekly" | "Monthly" | "Bi-Monthly" | "Semi-Monthly" | "Quarterly" | "Semi-Annually" | "Annually";
                        EndDate: string | null;
                        /** @description Failed charges of NextBillDate so far. */
                        FailedAttempts: number;
                        LastFailure: string | null;
                        LastPaymentGuid: string | null;
                        Message: string;
                        /**
                         * Format: date
                         * @description yyyy-MM-dd: when the next charge is tried (after a failure, a retry day; else NextBillDate).
                         */
                        NextAttemptDate: string;
                        /**
                         * Format: date
                         * @description yyyy-MM-dd: the bill date charged next.
                         */
                        NextBillDate: string;
                        PayFee: boolean;
                        PreFeeAmount: number | null;
                        /** Format: uuid */
                        ProcessorGuid: string;
                        /** @description No processor is called by these operations; says so. */
                        ProcessorMessage: string;
                        /** Format: uuid */
                        RecurringProfileGuid: string;
                        /** Format: int32 */
                        RecurringProfileId: number;
                        /** @description OK */
                        ResponseCode: string;
                        /**
                         * Format: date
                         * @description yyyy-MM-dd
                         */
                        StartDate: string;
                        /** @description Active (billing), Suspended (failed charges used up its retries; a PUT with a NextBillDate resumes it), Completed (past EndDate), Cancelled. */
                        Status: "Active" | "Suspended" | "Completed" | "Cancelled";
                        /** @description true for every success response. */
                        Successful: boolean;
                        /** Format: uuid */
                        TokenGuid: string;
                        TransactionId: string | null;
                        TransactionSourceGroupId: string;
                    };
                };
            };
            /** @description Validation failed: one BrokenRule per broken field or rule. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BrokenRule"][];
                };
            };
            /** @description The AccessToken header is missing, unknown or expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No data found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Internal error; nothing internal is revealed. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The service cannot reach its database: nothing was done; the call can be repeated (a payment with the same TranId meets the duplicate check). */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    updateRecurringProfile: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1 to 255 printable ASCII characters (a UUID is recommended), or the same as a quoted string ("..."). A repeated request with the key and the same request (method, path, query, body) gets the first answer, byte for byte, with Idempotent-Replayed: true, and does nothing else; another request with the key is 422; while the first runs, 409 with Retry-After. Keys are kept 24 hours (IDEMPOTENCY_TTL), per partner. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json-patch+json": {
                    /**
                     * @description Amount per bill date, e.g. 25.00. With PayFee: see PreFeeAmount.
                     * @example 25.00
                     */
                    Amount?: string;
                    /**
                     * @description One of Daily, Weekly, Bi-Weekly, Monthly, Bi-Monthly, Semi-Monthly, Quarterly, Semi-Annually, Annually (any letter case).
                     * @example Monthly
                     */
                    BillingFrequency?: string;
                    /** @description Card processing fee percentage, 0 <= x < 100, at most 4 decimals. Not used for ACH. */
                    CardProcessingFeeOverride?: string;
                    /** @description Total commission percentage (at most 4 decimals), clamped into [platform, maximum] of the contract at each charge. */
                    CommissionRateOverride?: string;
                    /** @description yyyy-MM-dd, after StartDate. Bill dates up to and including it are charged; then the profile is completed. */
                    EndDate?: string;
                    /** Format: uuid */
                    ExternalEventGuid?: string;
                    ExternalEventId?: string;
                    ExternalEventName?: string;
                    /**
                     * Format: uuid
                     * @description internal use: one of the partner's integration sources.
                     */
                    IntegrationSource?: string;
                    /** @description yyyy-MM-dd: the first (create) or next (update) charge; after StartDate, not in the past, not after EndDate. Omitted on create: the schedule's first bill date after StartDate that is not in the past. Its day of the month anchors month steps. */
                    NextBillDate?: string;
                    /** @description The payer covers the fees: each charge is PreFeeAmount (else Amount) grossed up by the fee rules. Default false: fees come out of Amount. */
                    PayFee?: boolean;
                    /** @description With PayFee: the amount before fees; each charge adds the fees to it (the partner nets PreFeeAmount). Not more than Amount. */
                    PreFeeAmount?: string;
                    /**
                     * Format: uuid
                     * @description The profile to change.
                     */
                    RecurringProfileGuid: string;
                    /**
                     * @description Contract start, yyyy-MM-dd.
                     * @example 2026-11-21
                     */
                    StartDate?: string;
                    /** @description Fee category 1-12; default 12 for a for-profit partner, 1 (Donation) for a non-profit one. */
                    TransactionSourceGroupId?: string;
                    /** @description false: from now on the profile uses the partner's current fee rates. Omitted or true: it keeps the rates it has (those of its creation). */
                    UseOriginalFees?: boolean;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    /** @description "true" when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        Message: string;
                        /** @description No processor is called by these operations; says so. */
                        ProcessorMessage: string;
                        /** Format: uuid */
                        RecurringProfileGuid: string;
                        /** Format: int32 */
                        RecurringProfileId: number;
                        /** @description OK */
                        ResponseCode: string;
                        /** @description true for every success response. */
                        Successful: boolean;
                        TransactionId: string | null;
                    };
                };
            };
            /** @description Validation failed: one BrokenRule per broken field or rule. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BrokenRule"][];
                };
            };
            /** @description The AccessToken header is missing, unknown or expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No data found. */
            404: {
                headers: {
                    /** @description "true" when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description A request with this Idempotency-Key is still running (with Retry-After: send it again then), or stopped without an answer (without Retry-After: it is not run again). */
            409: {
                headers: {
                    /** @description Seconds to wait before sending the request again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The content type is not a JSON type, or the body is compressed. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description This Idempotency-Key was used for another request. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Internal error; nothing internal is revealed. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The service cannot reach its database: nothing was done; the call can be repeated (a payment with the same TranId meets the duplicate check). */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    createRecurringProfile: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1 to 255 printable ASCII characters (a UUID is recommended), or the same as a quoted string ("..."). A repeated request with the key and the same request (method, path, query, body) gets the first answer, byte for byte, with Idempotent-Replayed: true, and does nothing else; another request with the key is 422; while the first runs, 409 with Retry-After. Keys are kept 24 hours (IDEMPOTENCY_TTL), per partner. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json-patch+json": {
                    /**
                     * @description Amount per bill date, e.g. 25.00. With PayFee: see PreFeeAmount.
                     * @example 25.00
                     */
                    Amount: string;
                    /**
                     * @description One of Daily, Weekly, Bi-Weekly, Monthly, Bi-Monthly, Semi-Monthly, Quarterly, Semi-Annually, Annually (any letter case).
                     * @example Monthly
                     */
                    BillingFrequency: string;
                    /** @description Card processing fee percentage, 0 <= x < 100, at most 4 decimals. Not used for ACH. */
                    CardProcessingFeeOverride?: string;
                    /** @description Total commission percentage (at most 4 decimals), clamped into [platform, maximum] of the contract at each charge. */
                    CommissionRateOverride?: string;
                    /** @description yyyy-MM-dd, after StartDate. Bill dates up to and including it are charged; then the profile is completed. */
                    EndDate?: string;
                    /** Format: uuid */
                    ExternalEventGuid?: string;
                    ExternalEventId?: string;
                    ExternalEventName?: string;
                    /**
                     * Format: uuid
                     * @description internal use: one of the partner's integration sources.
                     */
                    IntegrationSource?: string;
                    /** @description yyyy-MM-dd: the first (create) or next (update) charge; after StartDate, not in the past, not after EndDate. Omitted on create: the schedule's first bill date after StartDate that is not in the past. Its day of the month anchors month steps. */
                    NextBillDate?: string;
                    /** @description The payer covers the fees: each charge is PreFeeAmount (else Amount) grossed up by the fee rules. Default false: fees come out of Amount. */
                    PayFee?: boolean;
                    /** @description With PayFee: the amount before fees; each charge adds the fees to it (the partner nets PreFeeAmount). Not more than Amount. */
                    PreFeeAmount?: string;
                    /**
                     * @description Contract start, yyyy-MM-dd.
                     * @example 2026-11-21
                     */
                    StartDate: string;
                    /** @description Calculated surcharge added to each charge. */
                    Surcharge?: string;
                    /** @description One of the partner's tokens: its TokenGuid, or its CcInfoKey / CheckInfoKey. */
                    TokenGuid: string;
                    /** @description Fee category 1-12; default 12 for a for-profit partner, 1 (Donation) for a non-profit one. */
                    TransactionSourceGroupId?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    /** @description "true" when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        Message: string;
                        /** @description No processor is called by these operations; says so. */
                        ProcessorMessage: string;
                        /** Format: uuid */
                        RecurringProfileGuid: string;
                        /** Format: int32 */
                        RecurringProfileId: number;
                        /** @description OK */
                        ResponseCode: string;
                        /** @description true for every success response. */
                        Successful: boolean;
                        TransactionId: string | null;
                    };
                };
            };
            /** @description Validation failed: one BrokenRule per broken field or rule. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BrokenRule"][];
                };
            };
            /** @description The AccessToken header is missing, unknown or expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description A request with this Idempotency-Key is still running (with Retry-After: send it again then), or stopped without an answer (without Retry-After: it is not run again). */
            409: {
                headers: {
                    /** @description Seconds to wait before sending the request again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The content type is not a JSON type, or the body is compressed. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description This Idempotency-Key was used for another request. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Internal error; nothing internal is revealed. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The service cannot reach its database: nothing was done; the call can be repeated (a payment with the same TranId meets the duplicate check). */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    cancelRecurringProfile: {
        parameters: {
            query: {
                /** @description internal use */
                IntegrationSource?: string;
                /** @description The profile to cancel. */
                RecurringProfileGuid: string;
            };
            header?: {
                /** @description 1 to 255 printable ASCII characters (a UUID is recommended), or the same as a quoted string ("..."). A repeated request with the key and the same request (method, path, query, body) gets the first answer, byte for byte, with Idempotent-Replayed: true, and does nothing else; another request with the key is 422; while the first runs, 409 with Retry-After. Keys are kept 24 hours (IDEMPOTENCY_TTL), per partner. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    /** @description "true" when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        Message: string;
                        /** @description No processor is called by these operations; says so. */
                        ProcessorMessage: string;
                        /** Format: uuid */
                        RecurringProfileGuid: string;
                        /** Format: int32 */
                        RecurringProfileId: number;
                        /** @description OK */
                        ResponseCode: string;
                        /** @description true for every success response. */
                        Successful: boolean;
                        TransactionId: string | null;
                    };
                };
            };
            /** @description Validation failed: one BrokenRule per broken field or rule. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BrokenRule"][];
                };
            };
            /** @description The AccessToken header is missing, unknown or expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No data found. */
            404: {
                headers: {
                    /** @description "true" when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description A request with this Idempotency-Key is still running (with Retry-After: send it again then), or stopped without an answer (without Retry-After: it is not run again). */
            409: {
                headers: {
                    /** @description Seconds to wait before sending the request again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The content type is not a JSON type, or the body is compressed. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description This Idempotency-Key was used for another request. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Internal error; nothing internal is revealed. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The service cannot reach its database: nothing was done; the call can be repeated (a payment with the same TranId meets the duplicate check). */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    refundPayment: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1 to 255 printable ASCII characters (a UUID is recommended), or the same as a quoted string ("..."). A repeated request with the key and the same request (method, path, query, body) gets the first answer, byte for byte, with Idempotent-Replayed: true, and does nothing else; another request with the key is 422; while the first runs, 409 with Retry-After. Keys are kept 24 hours (IDEMPOTENCY_TTL), per partner. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json-patch+json": {
                    /**
                     * @description Not needed: a refund or void is always for the whole payment. When sent, it must be the payment's TotalAmount; any other amount is refused (400, ErrorCode 1006), never taken as a partial refund.
                     * @example 108.44
                     */
                    Amount?: string;
                    /**
                     * Format: uuid
                     * @description Accepted for compatibility; the payment is found by PaymentGuid or PaymentExternalId.
                     */
                    CharityId?: string;
                    /**
                     * Format: uuid
                     * @description internal use; not used to find the payment.
                     */
                    IntegrationSource?: string;
                    /**
                     * Format: uuid
                     * @description internal use; not used to find the payment.
                     */
                    OrganizationGuid?: string;
                    /** @description The payment's gateway TransactionId (from the payment response); optional when PaymentGuid is sent. */
                    PaymentExternalId?: string;
                    /**
                     * Format: uuid
                     * @description The payment to act on; optional when PaymentExternalId is sent. When both are sent they must name the same payment.
                     */
                    PaymentGuid?: string;
                    /**
                     * Format: uuid
                     * @description Optional for a non-profit partner; required for a for-profit partner. Must be the payment's processor.
                     */
                    ProcessorGuid?: string;
                    /** @description Why the payment is refunded or voided (required); kept with the record. */
                    Reason: string;
                };
            };
        };
        responses: {
            /** @description Every request that found its payment, whether it went through or not (Successful says which). */
            200: {
                headers: {
                    /** @description "true" when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RefundVoidResponse"];
                };
            };
            /** @description Validation failed: one BrokenRule per broken field or rule. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BrokenRule"][];
                };
            };
            /** @description The AccessToken header is missing, unknown or expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No data found. */
            404: {
                headers: {
                    /** @description "true" when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description A request with this Idempotency-Key is still running (with Retry-After: send it again then), or stopped without an answer (without Retry-After: it is not run again). */
            409: {
                headers: {
                    /** @description Seconds to wait before sending the request again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The content type is not a JSON type, or the body is compressed. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description This Idempotency-Key was used for another request. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Internal error; nothing internal is revealed. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The service cannot reach its database: nothing was done; the call can be repeated (a payment with the same TranId meets the duplicate check). */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    sourceTransactionsReport: {
        parameters: {
            query?: {
                /** @description One of the partner's integration sources (repeat the parameter for several). Default: every payment of the partner. */
                IntegrationSource?: string[];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json-patch+json": {
                    /** @description Required; may be empty. A payment is in the report when it passes every filter. At most 1000 values in all. */
                    Filters: {
                        /** @description A field of the report row (any letter case): PaymentId, PaymentGuid, PaymentDate, ProcessedDate, TranId, PaymentExternalId, AuthCode, PaymentMethod, PaymentMethodTypeId, PaymentMethodType, CardType, CardLastFour, CheckAccountLastFour, Currency, Amount, TipAmount, TaxAmount, ShippingFee, Surcharge, TotalAmount, TotalFees, TotalCommission, PartnerCommission, PlatformCommission, NetAmount, ProcessStatus, ProcessStatusName, PaymentResult, PaymentResultName, ResponseCode, ResponseMessage, SettlementDate, SettlementBatch, RefundedAmount, RefundedDate, VoidedAmount, VoidedDate, ProcessorGuid, IntegrationSourceGuid, IntegrationSourceName, OrganizationGuid, OrganizationName, CharityId, CharityName, RecurringProfileGuid, RecurringProfileId, BillDate, PayLinkId, FirstName, LastName, EmailAddress, ExternalConstituentId. */
                        Name: string;
                        /**
                         * Format: int32
                         * @description 0 Equals, 1 NotEquals, 2 Contains, 3 StartsWith, 4 EndsWith, 5 GreaterThan, 6 LessThan, 7 After, 8 Before, 9 GreaterThanOrEqual, 10 LessThanOrEqual, 11 Between, 12 In, 13 NotIn, 14 IsNull, 15 IsNotNull, 16 OnOrAfter, 17 OnOrBefore. Which a field takes depends on its type (the row's field descriptions). Dates are whole days of UTC: 7 After 2026-01-01 is from 2026-01-02 00:00 UTC on; Equals, Between and the others alike. NotEquals and NotIn keep payments without a value.
                         * @enum {integer}
                         */
                        Operation: 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11 | 12 | 13 | 14 | 15 | 16 | 17;
                        /** @description The values compared with: one for most operations, two for Between (lower first), one to 100 for In and NotIn, none for IsNull and IsNotNull. */
                        Values?: string[];
                    }[];
                    /**
                     * Format: int32
                     * @description The page, from 1 (0 is the first page too). A page past the end is empty.
                     */
                    PageIndex?: number;
                    /**
                     * Format: int32
                     * @description Rows per page, 1-1000; default 50.
                     */
                    PageSize?: number;
                    /** @description Default PaymentDate descending. PaymentId, in the direction of the first column, breaks ties. */
                    SortColumns?: {
                        /** @description Default false (ascending). Payments without a value come last ascending, first descending. */
                        Descending?: boolean;
                        /** @description A field of the report row. */
                        Name: string;
                        /**
                         * Format: int32
                         * @description Which column sorts first (lowest first); required when there are several.
                         */
                        Order?: number;
                    }[];
                };
            };
        };
        responses: {
            /** @description One page of the report, with the total count. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TransactionReportDetails"];
                };
            };
            /** @description Validation failed: one BrokenRule per broken field or rule. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BrokenRule"][];
                };
            };
            /** @description The AccessToken header is missing, unknown or expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The integration source or organization is not one of the partner's (or does not exist). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The content type is not a JSON type, or the body is compressed. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Internal error; nothing internal is revealed. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The service cannot reach its database: nothing was done; the call can be repeated (a payment with the same TranId meets the duplicate check). */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    voidPayment: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1 to 255 printable ASCII characters (a UUID is recommended), or the same as a quoted string ("..."). A repeated request with the key and the same request (method, path, query, body) gets the first answer, byte for byte, with Idempotent-Replayed: true, and does nothing else; another request with the key is 422; while the first runs, 409 with Retry-After. Keys are kept 24 hours (IDEMPOTENCY_TTL), per partner. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json-patch+json": {
                    /**
                     * @description Not needed: a refund or void is always for the whole payment. When sent, it must be the payment's TotalAmount; any other amount is refused (400, ErrorCode 1006), never taken as a partial refund.
                     * @example 108.44
                     */
                    Amount?: string;
                    /**
                     * Format: uuid
                     * @description Accepted for compatibility; the payment is found by PaymentGuid or PaymentExternalId.
                     */
                    CharityId?: string;
                    /**
                     * Format: uuid
                     * @description internal use; not used to find the payment.
                     */
                    IntegrationSource?: string;
                    /**
                     * Format: uuid
                     * @description internal use; not used to find the payment.
                     */
                    OrganizationGuid?: string;
                    /** @description The payment's gateway TransactionId (from the payment response); optional when PaymentGuid is sent. */
                    PaymentExternalId?: string;
                    /**
                     * Format: uuid
                     * @description The payment to act on; optional when PaymentExternalId is sent. When both are sent they must name the same payment.
                     */
                    PaymentGuid?: string;
                    /**
                     * Format: uuid
                     * @description Optional for a non-profit partner; required for a for-profit partner. Must be the payment's processor.
                     */
                    ProcessorGuid?: string;
                    /** @description Why the payment is refunded or voided (required); kept with the record. */
                    Reason: string;
                };
            };
        };
        responses: {
            /** @description Every request that found its payment, whether it went through or not (Successful says which). */
            200: {
                headers: {
                    /** @description "true" when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RefundVoidResponse"];
                };
            };
            /** @description Validation failed: one BrokenRule per broken field or rule. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BrokenRule"][];
                };
            };
            /** @description The AccessToken header is missing, unknown or expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No data found. */
            404: {
                headers: {
                    /** @description "true" when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description A request with this Idempotency-Key is still running (with Retry-After: send it again then), or stopped without an answer (without Retry-After: it is not run again). */
            409: {
                headers: {
                    /** @description Seconds to wait before sending the request again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The body is larger than 1 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The content type is not a JSON type, or the body is compressed. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description This Idempotency-Key was used for another request. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Internal error; nothing internal is revealed. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The service cannot reach its database: nothing was done; the call can be repeated (a payment with the same TranId meets the duplicate check). */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
}

/** Operations that take an Idempotency-Key ("METHOD /path"): one whose answer was lost may be sent again with the same key. */
export const IDEMPOTENT_OPERATIONS: ReadonlySet<string> = new Set([
  "DELETE /api/paylink",
  "DELETE /api/recurringProfile",
  "POST /api/notificationRedeliver",
  "POST /api/paylink",
  "POST /api/payment",
  "POST /api/paymentAch",
  "POST /api/recurringProfile",
  "POST /api/refund",
  "POST /api/void",
  "PUT /api/notificationConfig",
  "PUT /api/recurringProfile",
]);
