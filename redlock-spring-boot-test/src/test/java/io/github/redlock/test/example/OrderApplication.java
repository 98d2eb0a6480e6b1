package io.github.redlock.test.example;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The application of the README's example test.
 */
@SpringBootApplication(proxyBeanMethods = false)
public class OrderApplication {

}
