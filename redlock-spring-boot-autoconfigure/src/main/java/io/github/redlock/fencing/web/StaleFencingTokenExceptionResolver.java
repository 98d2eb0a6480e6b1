package io.github.redlock.fencing.web;

import io.github.redlock.fencing.StaleFencingTokenException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.core.Ordered;
import org.springframework.http.HttpStatus;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;

/**
 * Answers a {@link StaleFencingTokenException} that reaches Spring MVC (a fenced commit refused: a later holder of the
 * lock wrote first) with 409 (Conflict) and the exception's message, instead of a server error: the request was stale,
 * the server is fine. Runs after Spring MVC's own resolvers ({@link Ordered#LOWEST_PRECEDENCE}), so that an
 * {@code @ExceptionHandler} of the application's for the exception still wins. With {@code redlock.fencing=true} in a
 * servlet web application, the auto-configuration registers it.
 */
public final class StaleFencingTokenExceptionResolver implements HandlerExceptionResolver, Ordered {

    /** Creates the resolver. */
    public StaleFencingTokenExceptionResolver() {
    }

    /**
     * Answers 409 for a {@link StaleFencingTokenException}, wherever in the causes it is.
     * @param request the request
     * @param response the response
     * @param handler the handler, or null
     * @param ex what the handler threw
     * @return an empty view when answered, null to leave the exception to the next resolver
     */
    @Override
    public @Nullable ModelAndView resolveException(HttpServletRequest request, HttpServletResponse response, @Nullable Object handler,
            Exception ex) {
        for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
            if (cause instanceof StaleFencingTokenException stale) {
                try {
                    response.sendError(HttpStatus.CONFLICT.value(), stale.getMessage());
                    return new ModelAndView();
                }
                catch (java.io.IOException failure) {
                    return null;
                }
            }
        }
        return null;
    }

    /**
     * Returns the resolver's order.
     * @return {@link Ordered#LOWEST_PRECEDENCE}
     */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

}
