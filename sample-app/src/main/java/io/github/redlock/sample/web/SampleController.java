package io.github.redlock.sample.web;

import java.time.Duration;
import java.util.Map;

import io.github.redlock.core.RedlockAcquisitionException;
import io.github.redlock.sample.catalog.CatalogRebuild;
import io.github.redlock.sample.orders.OrderService;
import io.github.redlock.sample.orders.PaymentGateway;
import io.github.redlock.sample.orders.Receipt;
import io.github.redlock.sample.prices.PriceList;
import io.github.redlock.sample.settlement.Settlement;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The sample's HTTP API. A lock that could not be acquired in time answers 409 Conflict with the lock's
 * facts, bad input 400.
 */
@RestController
public class SampleController {

    private final OrderService orders;

    private final PaymentGateway gateway;

    private final ContentionDemo contention;

    private final PriceList prices;

    private final CatalogRebuild catalog;

    private final Settlement settlement;

    private final FencingDemo fencing;

    SampleController(OrderService orders, PaymentGateway gateway, ContentionDemo contention, PriceList prices,
            CatalogRebuild catalog, Settlement settlement, FencingDemo fencing) {
        this.orders = orders;
        this.gateway = gateway;
        this.contention = contention;
        this.prices = prices;
        this.catalog = catalog;
        this.settlement = settlement;
        this.fencing = fencing;
    }

    @PostMapping("/orders/{id}/pay")
    Receipt pay(@PathVariable String id, @RequestParam(defaultValue = "1999") long amountCents) {
        return this.orders.pay(id, amountCents);
    }

    @GetMapping("/orders/{id}/charges")
    Map<String, Object> charges(@PathVariable String id) {
        return Map.of("orderId", id, "charges", this.gateway.charges(id));
    }

    @PostMapping("/demo/contention")
    ContentionDemo.Report contention(@RequestParam(defaultValue = "50") int payments) throws Exception {
        return this.contention.run(payments);
    }

    @PostMapping("/demo/fencing")
    FencingDemo.Report fencing() throws InterruptedException {
        return this.fencing.run();
    }

    @GetMapping("/prices")
    PriceList.Quote prices() {
        return this.prices.quote();
    }

    @PutMapping("/prices")
    PriceList.Quote replacePrices(@RequestBody Map<String, Long> replacement) {
        return this.prices.replace(replacement);
    }

    @PostMapping("/catalog/rebuild")
    ResponseEntity<Map<String, Object>> rebuild(@RequestParam(defaultValue = "30") long seconds) {
        if (seconds < 1 || seconds > 3600) {
            throw new IllegalArgumentException("seconds must be between 1 and 3600, was " + seconds);
        }
        this.catalog.rebuild(Duration.ofSeconds(seconds)); // holds the lock until the rebuild completes
        return ResponseEntity.accepted().body(Map.of("status", "rebuilding", "lock", "catalog-rebuild", "seconds", seconds));
    }

    @PostMapping("/settlement")
    Map<String, Object> settle() {
        return this.settlement.settle().<Map<String, Object>>map((report) -> Map.of("status", "settled", "report", report))
                .orElseGet(() -> Map.of("status", "skipped: another instance is settling"));
    }

    @ExceptionHandler
    ProblemDetail lockNotAcquired(RedlockAcquisitionException ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, ex.getMessage());
        problem.setTitle("Lock not acquired");
        problem.setProperty("key", ex.getKey());
        problem.setProperty("agreedNodes", ex.getAgreedNodes());
        problem.setProperty("quorum", ex.getQuorum());
        problem.setProperty("nodeFailures", ex.getNodeFailures());
        return problem;
    }

    @ExceptionHandler
    ProblemDetail badInput(IllegalArgumentException ex) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, ex.getMessage());
    }

}
