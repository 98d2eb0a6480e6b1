package io.github.redlock.test.example;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The application of the example test in docs/testing.md.
 */
@SpringBootApplication(proxyBeanMethods = false)
public class OrderApplication {

}
