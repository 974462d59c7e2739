import Envelope

/// Every bus operation Melon defines. Contract tests check that each has examples on file.
public enum ContractCatalog {
    public static let operations: [any BusOperation.Type] = [
        Echo.Message.Repeat.self,
        PdfEmail.Mail.Send.self,
        PdfEmail.Mail.Status.self,
        PdfEmail.Account.Erase.self,
        Auth.Account.Register.self,
        Auth.Email.Verify.self,
        Auth.Email.Resend.self,
        Auth.Session.Login.self,
        Auth.Session.Refresh.self,
        Auth.Session.Logout.self,
        Auth.Password.Forgot.self,
        Auth.Password.Reset.self,
        Auth.Password.Change.self,
        Auth.Events.List.self,
        Auth.Agreements.List.self,
        Auth.Agreements.Sign.self,
        Auth.Agreements.Withdraw.self,
        Auth.Picture.Set.self,
        Auth.Picture.Get.self,
        Auth.Picture.Delete.self,
        Auth.Me.Get.self,
        Auth.Me.Update.self,
        Auth.Me.Delete.self,
        Auth.Keys.Jwks.self,
    ]
}
