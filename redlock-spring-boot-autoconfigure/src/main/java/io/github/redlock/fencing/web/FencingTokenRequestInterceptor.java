package io.github.redlock.fencing.web;

import java.io.IOException;

import io.github.redlock.annotation.RedlockContext;

import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * Sends the fencing token of the lease current on the calling thread ({@link RedlockContext#currentLease()}: the
 * innermost {@code @Redlocked} method's) as the {@value FencingTokenHeader#NAME} header of a {@code RestClient} or
 * {@code RestTemplate} request, so that the downstream service can refuse the writes of a holder that a later one
 * overtook ({@link FencingTokenHandlerInterceptor}). Without a current lease with a token, the request goes as it is;
 * a header the caller set itself is kept. With {@code redlock.fencing=true} the auto-configuration adds it to the
 * {@code RestClient.Builder} that Spring Boot provides.
 */
public final class FencingTokenRequestInterceptor implements ClientHttpRequestInterceptor {

    /** Creates the interceptor. */
    public FencingTokenRequestInterceptor() {
    }

    /**
     * Adds the header, if there is a token to send, and sends the request.
     * @param request the request
     * @param body its body
     * @param execution the rest of the chain
     * @return the response
     * @throws IOException when sending fails
     */
    @Override
    public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution) throws IOException {
        if (!request.getHeaders().containsHeader(FencingTokenHeader.NAME)) {
            FencingTokenHeader.tokenOf(RedlockContext.currentLease().orElse(null))
                    .ifPresent((token) -> request.getHeaders().set(FencingTokenHeader.NAME, Long.toString(token)));
        }
        return execution.execute(request, body);
    }

}
