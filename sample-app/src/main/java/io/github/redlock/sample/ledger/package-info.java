/**
 * An account ledger in a real database (H2) whose writes carry the lock's fencing token, so that the database
 * refuses a holder that paused past the end of its lease while another holder wrote.
 */
package io.github.redlock.sample.ledger;
