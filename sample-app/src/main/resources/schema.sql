-- The ledger's accounts (package io.github.redlock.sample.ledger). Their fences are the starter's own table,
-- redlock_fence, which it creates in an embedded database: Ledger.change is @Redlocked(fenced = true).
CREATE TABLE IF NOT EXISTS balance (
    account_id VARCHAR(64) PRIMARY KEY,
    amount     BIGINT      NOT NULL
);
