package io.github.redlock.sample;

import java.time.Duration;

import io.github.redlock.core.Redlock;
import io.github.redlock.test.RedisNodesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

@SpringBootTest
@ExtendWith(OutputCaptureExtension.class)
class SampleApplicationTests {

    @RegisterExtension
    static final RedisNodesExtension redis = RedisNodesExtension.of(5);

    @DynamicPropertySource
    static void nodes(DynamicPropertyRegistry registry) {
        registry.add("redlock.nodes", () -> String.join(",", redis.uris()));
    }

    @Autowired
    private Redlock redlock;

    @Test
    void settlementRanUnderTheLockAndReleasedIt(CapturedOutput output) {
        assertThat(output).contains("Holding lock 'settlement'");
        // The runner released the lock when it finished, so it is free again.
        assertThat(this.redlock.tryAcquire("settlement", Duration.ofSeconds(5))).isPresent();
    }

}
