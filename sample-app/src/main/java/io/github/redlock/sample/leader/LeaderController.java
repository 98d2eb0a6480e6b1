package io.github.redlock.sample.leader;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /leader}: whether this instance leads, with its epoch and how many times the relay ran here.
 */
@RestController
class LeaderController {

    private final OutboxRelay relay;

    LeaderController(OutboxRelay relay) {
        this.relay = relay;
    }

    @GetMapping("/leader")
    OutboxRelay.Status leader() {
        return this.relay.status();
    }

}
