/**
 * An account ledger in a real database (H2) whose changes are {@code @Redlocked(fenced = true)}, so that the database
 * refuses the commit of a holder that paused past the end of its lease while another holder wrote.
 */
package io.github.redlock.sample.ledger;
