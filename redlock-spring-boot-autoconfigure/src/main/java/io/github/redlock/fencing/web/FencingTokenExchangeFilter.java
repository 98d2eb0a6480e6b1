package io.github.redlock.fencing.web;

import java.util.OptionalLong;

import io.github.redlock.annotation.RedlockContext;
import io.github.redlock.annotation.RedlockContextAccessor;
import io.github.redlock.core.RedlockLease;
import reactor.core.publisher.Mono;

import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;

/**
 * Sends the current lease's fencing token as the {@value FencingTokenHeader#NAME} header of a {@code WebClient}
 * request: the lease in the Reactor context of the exchange (a reactive {@code @Redlocked} method's, under
 * {@link RedlockContextAccessor#KEY}), else the one current on the thread that subscribes (a blocking call in a
 * {@code @Redlocked} method). Without either, or without a token, the request goes as it is; a header the caller set
 * itself is kept. With {@code redlock.fencing=true} the auto-configuration adds it to the {@code WebClient.Builder} that
 * Spring Boot provides.
 */
public final class FencingTokenExchangeFilter implements ExchangeFilterFunction {

    /** Creates the filter. */
    public FencingTokenExchangeFilter() {
    }

    /**
     * Adds the header, if there is a token to send, and exchanges the request.
     * @param request the request
     * @param next the rest of the chain
     * @return the response
     */
    @Override
    public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
        if (request.headers().containsHeader(FencingTokenHeader.NAME)) {
            return next.exchange(request);
        }
        return Mono.deferContextual((context) -> {
            RedlockLease lease = context.<RedlockLease>getOrEmpty(RedlockContextAccessor.KEY)
                    .orElseGet(() -> RedlockContext.currentLease().orElse(null));
            OptionalLong token = FencingTokenHeader.tokenOf(lease);
            if (token.isEmpty()) {
                return next.exchange(request);
            }
            return next.exchange(ClientRequest.from(request)
                    .header(FencingTokenHeader.NAME, Long.toString(token.getAsLong())).build());
        });
    }

}
