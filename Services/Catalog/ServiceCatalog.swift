import Contracts

/// Every product service's contract: what the gateway routes and documents, where auth sends an
/// account's erasure, and what the contract tests check. The list itself
/// (`ServiceCatalog+Services.swift`) is made from `MelonServices.all`.
public enum ServiceCatalog {
    /// Every operation of every service.
    public static var operations: [any OperationDeclaration.Type] { services.flatMap { $0.operations } }

    /// The erase operation of every service that keeps personal data.
    public static var erasures: [any AccountEraseOperation.Type] { services.compactMap { $0.erase } }
}
