package io.github.redlock.fencing.web;

import io.github.redlock.fencing.JdbcFence;
import io.github.redlock.fencing.internal.TransactionGuards;
import jakarta.servlet.DispatcherType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.embedded.EmbeddedDatabase;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The server side's guard per request, on a real (H2) fence: every request leaves its thread with no guard open, with
 * two interceptors of two resources on one path, through a forward, and when the handler goes asynchronous; and it
 * answers 428 and 400 for a missing and a malformed header. (Servlet requests here are Spring's test doubles of the
 * servlet API; the server, the transactions and the race are in {@link FencingTokenHeaderIntegrationTests}.)
 */
class FencingTokenHandlerInterceptorTests {

    private EmbeddedDatabase database;

    private JdbcFence fence;

    @BeforeEach
    void createFence() {
        this.database = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2).generateUniqueName(true).build();
        this.fence = new JdbcFence(this.database, JdbcFence.DEFAULT_TABLE_NAME);
        this.fence.createTable();
    }

    @AfterEach
    void shutDown() {
        this.database.shutdown();
        assertThat(TransactionGuards.openOnThisThread()).as("guards left open on the test's thread").isZero();
    }

    @Test
    void twoInterceptorsOfTwoResourcesLeaveNoGuardWhicheverOrderTheyCompleteIn() throws Exception {
        FencingTokenHandlerInterceptor inventory = new FencingTokenHandlerInterceptor(this.fence, "inventory");
        FencingTokenHandlerInterceptor orders = new FencingTokenHandlerInterceptor(this.fence, "orders");
        MockHttpServletRequest request = request("7");
        MockHttpServletResponse response = new MockHttpServletResponse();
        assertThat(inventory.preHandle(request, response, this)).isTrue();
        assertThat(orders.preHandle(request, response, this)).isTrue();
        assertThat(TransactionGuards.openOnThisThread()).isEqualTo(2);
        orders.afterCompletion(request, response, this, null);
        inventory.afterCompletion(request, response, this, null);
        assertThat(TransactionGuards.openOnThisThread()).isZero();
        // The other order: the outer one first.
        MockHttpServletRequest again = request("7");
        inventory.preHandle(again, response, this);
        orders.preHandle(again, response, this);
        inventory.afterCompletion(again, response, this, null);
        assertThat(TransactionGuards.openOnThisThread()).isOne();
        orders.afterCompletion(again, response, this, null);
        assertThat(TransactionGuards.openOnThisThread()).isZero();
    }

    @Test
    void aForwardToAnotherInterceptedPathOpensNoSecondGuard() throws Exception {
        FencingTokenHandlerInterceptor inventory = new FencingTokenHandlerInterceptor(this.fence, "inventory");
        MockHttpServletRequest request = request("7");
        MockHttpServletResponse response = new MockHttpServletResponse();
        inventory.preHandle(request, response, this);
        request.setDispatcherType(DispatcherType.FORWARD);
        assertThat(inventory.preHandle(request, response, this)).isTrue();
        assertThat(TransactionGuards.openOnThisThread()).isOne();
        inventory.afterCompletion(request, response, this, null);
        request.setDispatcherType(DispatcherType.REQUEST);
        inventory.afterCompletion(request, response, this, null);
        assertThat(TransactionGuards.openOnThisThread()).isZero();
    }

    @Test
    void anAsynchronousHandlerClosesTheGuardAsItGoesAsynchronousAndItsDispatchOpensNone() throws Exception {
        FencingTokenHandlerInterceptor inventory = new FencingTokenHandlerInterceptor(this.fence, "inventory");
        MockHttpServletRequest request = request("7");
        MockHttpServletResponse response = new MockHttpServletResponse();
        inventory.preHandle(request, response, this);
        inventory.afterConcurrentHandlingStarted(request, response, this);
        assertThat(TransactionGuards.openOnThisThread()).isZero();
        request.setDispatcherType(DispatcherType.ASYNC);
        assertThat(inventory.preHandle(request, response, this)).isTrue();
        assertThat(TransactionGuards.openOnThisThread()).isZero();
        inventory.afterCompletion(request, response, this, null);
    }

    @Test
    void aMissingHeaderIs428AndAMalformedOne400() throws Exception {
        FencingTokenHandlerInterceptor inventory = new FencingTokenHandlerInterceptor(this.fence, "inventory");
        MockHttpServletResponse missing = new MockHttpServletResponse();
        assertThat(inventory.preHandle(request(null), missing, this)).isFalse();
        assertThat(missing.getStatus()).isEqualTo(428);
        MockHttpServletResponse malformed = new MockHttpServletResponse();
        assertThat(inventory.preHandle(request("-3"), malformed, this)).isFalse();
        assertThat(malformed.getStatus()).isEqualTo(400);
        assertThat(malformed.getErrorMessage()).contains("was '-3'");
    }

    private static MockHttpServletRequest request(String token) {
        MockHttpServletRequest request = new MockHttpServletRequest("POST", "/inventory/sku-1");
        if (token != null) {
            request.addHeader(FencingTokenHeader.NAME, token);
        }
        return request;
    }


}
