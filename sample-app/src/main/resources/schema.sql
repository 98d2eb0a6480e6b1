-- The ledger's accounts (package io.github.redlock.sample.ledger). fence is the fencing token of the last
-- write accepted: a write is applied only with a larger one (UPDATE ... WHERE fence < ?).
CREATE TABLE IF NOT EXISTS balance (
    account_id VARCHAR(64) PRIMARY KEY,
    amount     BIGINT      NOT NULL,
    fence      BIGINT      NOT NULL DEFAULT 0
);
