/**
 * The fencing token over HTTP, for downstream services that guard their own storage: the client side sends the current
 * lease's token as the {@value io.github.redlock.fencing.web.FencingTokenHeader#NAME} header
 * ({@link io.github.redlock.fencing.web.FencingTokenRequestInterceptor} for {@code RestClient},
 * {@link io.github.redlock.fencing.web.FencingTokenExchangeFilter} for {@code WebClient}; the auto-configuration adds
 * them to Boot's builders), and the server side checks it against a {@link io.github.redlock.fencing.JdbcFence} in the
 * request's transactions ({@link io.github.redlock.fencing.web.FencingTokenHandlerInterceptor}).
 */
@NullMarked
package io.github.redlock.fencing.web;

import org.jspecify.annotations.NullMarked;
