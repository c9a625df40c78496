package io.github.redislock.sample.web;

import io.github.redislock.sample.shop.Order;
import io.github.redislock.sample.shop.PurchaseService;
import io.github.redislock.sample.shop.SkuStatus;
import io.github.redislock.sample.shop.SoldOutException;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * The shop's HTTP API. Failures become status codes in {@link PurchaseFailureHandler}.
 *
 * <pre>
 * PUT  /skus/42/stock?quantity=10   start a sale of 10 items      200 + status
 * POST /skus/42/purchase            buy one                       201 + order | 409 busy | 410 sold out
 * GET  /skus/42                     stock, orders, oversold       200 + status
 * </pre>
 */
@RestController
@RequestMapping("/skus/{id}")
public class SkuController {

    private final PurchaseService purchases;

    public SkuController(PurchaseService purchases) {
        this.purchases = purchases;
    }

    @PostMapping("/purchase")
    public ResponseEntity<Order> purchase(@PathVariable long id) {
        // Fast path: a buyer who arrives after the last item is told so at once instead of queueing for the lock
        // behind everyone else who is about to learn the same. Only "sold out" is decided outside the lock; the
        // locked purchase reads the stock again and is the one that counts.
        if (this.purchases.isSoldOut(id)) {
            throw new SoldOutException(id);
        }
        return ResponseEntity.status(HttpStatus.CREATED).body(this.purchases.purchase(id));
    }

    @GetMapping
    public SkuStatus status(@PathVariable long id) {
        return this.purchases.status(id);
    }

    @PutMapping("/stock")
    public SkuStatus stock(@PathVariable long id, @RequestParam long quantity) {
        if (quantity < 0) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "quantity must be zero or more");
        }
        return this.purchases.openSale(id, quantity);
    }
}
