//! UI strings of the public card page and the email signature in the 19 card languages
//! (spec 2.5).

use crate::domain::validation::Rule;

/// One language's strings of the card page, one named field each: a language that misses
/// one does not compile, and each string stands next to its name.
pub struct Strings {
    pub save_contact: &'static str,
    pub email: &'static str,
    pub call: &'static str,
    pub website: &'static str,
    pub book: &'static str,
    pub video: &'static str,
    pub directions: &'static str,
    pub get_in_touch: &'static str,
    pub name: &'static str,
    pub phone: &'static str,
    pub message: &'static str,
    pub send: &'static str,
    pub thanks: &'static str,
    pub not_found: &'static str,
    pub made_with: &'static str,
    pub fix_errors: &'static str,
    pub too_many: &'static str,
    pub unavailable: &'static str,
    pub consent: &'static str,
    pub privacy_policy: &'static str,
    pub consent_required: &'static str,
    pub show_qr: &'static str,
    pub qr_label: &'static str,
    /// The wallet buttons (wallet.md 3), worded as Apple's and Google's localised badges.
    pub add_to_apple_wallet: &'static str,
    pub add_to_google_wallet: &'static str,
    /// The email signature's link to the card page.
    pub my_card: &'static str,
    /// Lead-form validation messages ([`form_error`]).
    pub form: FormErrors,
}

/// Lead-form validation messages, one template per [`form_error`] rule; `{label}` is the
/// field's label as the form shows it, `{n}` the character limit. Labels stay verbatim
/// (quoted where the grammar around them would otherwise need an article or a case
/// ending).
pub struct FormErrors {
    pub required: &'static str,
    pub string: &'static str,
    pub max_chars: &'static str,
    pub email: &'static str,
    pub format: &'static str,
}

/// A string of [`Strings`] by name, for callers that choose it at run time.
#[derive(Clone, Copy)]
pub enum Text {
    SaveContact,
    Email,
    Call,
    Website,
    Book,
    Video,
    Directions,
    GetInTouch,
    Name,
    Phone,
    Message,
    Send,
    Thanks,
    NotFound,
    MadeWith,
    FixErrors,
    TooMany,
    Unavailable,
    Consent,
    PrivacyPolicy,
    ConsentRequired,
    ShowQr,
    QrLabel,
    AddToAppleWallet,
    AddToGoogleWallet,
}

impl Strings {
    pub fn get(&self, t: Text) -> &'static str {
        match t {
            Text::SaveContact => self.save_contact,
            Text::Email => self.email,
            Text::Call => self.call,
            Text::Website => self.website,
            Text::Book => self.book,
            Text::Video => self.video,
            Text::Directions => self.directions,
            Text::GetInTouch => self.get_in_touch,
            Text::Name => self.name,
            Text::Phone => self.phone,
            Text::Message => self.message,
            Text::Send => self.send,
            Text::Thanks => self.thanks,
            Text::NotFound => self.not_found,
            Text::MadeWith => self.made_with,
            Text::FixErrors => self.fix_errors,
            Text::TooMany => self.too_many,
            Text::Unavailable => self.unavailable,
            Text::Consent => self.consent,
            Text::PrivacyPolicy => self.privacy_policy,
            Text::ConsentRequired => self.consent_required,
            Text::ShowQr => self.show_qr,
            Text::QrLabel => self.qr_label,
            Text::AddToAppleWallet => self.add_to_apple_wallet,
            Text::AddToGoogleWallet => self.add_to_google_wallet,
        }
    }
}

const EN: Strings = Strings {
    save_contact: "Save contact",
    email: "Email",
    call: "Call",
    website: "Website",
    book: "Book a meeting",
    video: "Watch video",
    directions: "Directions",
    get_in_touch: "Get in touch",
    name: "Name",
    phone: "Phone",
    message: "Message",
    send: "Send",
    thanks: "Thank you! Your message has been sent.",
    not_found: "This card is not available.",
    made_with: "Made with Digital Business Card",
    fix_errors: "Please correct the errors below.",
    too_many: "You have already sent several messages. Please try again later.",
    unavailable: "Something went wrong. Please try again later.",
    consent: "I agree that my details are stored to answer my message.",
    privacy_policy: "Privacy policy",
    consent_required: "Please agree to the storage of your details to send your message.",
    show_qr: "Show QR code",
    qr_label: "QR code of this card",
    add_to_apple_wallet: "Add to Apple Wallet",
    add_to_google_wallet: "Add to Google Wallet",
    my_card: "My digital business card",
    form: FormErrors {
        required: "{label} is required.",
        string: "{label} must be text.",
        max_chars: "{label} must not be longer than {n} characters.",
        email: "{label} must be a valid email address.",
        format: "{label} has an invalid format.",
    },
};
const DE: Strings = Strings {
    save_contact: "Kontakt speichern",
    email: "E-Mail",
    call: "Anrufen",
    website: "Webseite",
    book: "Termin buchen",
    video: "Video ansehen",
    directions: "Route",
    get_in_touch: "Kontakt aufnehmen",
    name: "Name",
    phone: "Telefon",
    message: "Nachricht",
    send: "Senden",
    thanks: "Vielen Dank! Ihre Nachricht wurde gesendet.",
    not_found: "Diese Karte ist nicht verfügbar.",
    made_with: "Erstellt mit Digital Business Card",
    fix_errors: "Bitte korrigieren Sie die Fehler unten.",
    too_many: "Sie haben bereits mehrere Nachrichten gesendet. Bitte versuchen Sie es später erneut.",
    unavailable: "Etwas ist schiefgelaufen. Bitte versuchen Sie es später erneut.",
    consent: "Ich bin damit einverstanden, dass meine Angaben zur Beantwortung meiner Nachricht gespeichert werden.",
    privacy_policy: "Datenschutzerklärung",
    consent_required: "Bitte stimmen Sie der Speicherung Ihrer Angaben zu, um Ihre Nachricht zu senden.",
    show_qr: "QR-Code anzeigen",
    qr_label: "QR-Code dieser Karte",
    add_to_apple_wallet: "Zu Apple Wallet hinzufügen",
    add_to_google_wallet: "Zu Google Wallet hinzufügen",
    my_card: "Meine digitale Visitenkarte",
    form: FormErrors {
        required: "Bitte füllen Sie das Feld „{label}“ aus.",
        string: "Das Feld „{label}“ muss Text enthalten.",
        max_chars: "Das Feld „{label}“ darf höchstens {n} Zeichen lang sein.",
        email: "Bitte geben Sie im Feld „{label}“ eine gültige E-Mail-Adresse ein.",
        format: "Das Feld „{label}“ hat ein ungültiges Format.",
    },
};
const BG: Strings = Strings {
    save_contact: "Запази контакт",
    email: "Имейл",
    call: "Обаждане",
    website: "Уебсайт",
    book: "Запази среща",
    video: "Гледай видео",
    directions: "Упътване",
    get_in_touch: "Свържете се",
    name: "Име",
    phone: "Телефон",
    message: "Съобщение",
    send: "Изпрати",
    thanks: "Благодарим! Съобщението ви е изпратено.",
    not_found: "Тази визитка не е налична.",
    made_with: "Създадено с Digital Business Card",
    fix_errors: "Моля, поправете грешките по-долу.",
    too_many: "Вече сте изпратили няколко съобщения. Моля, опитайте отново по-късно.",
    unavailable: "Нещо се обърка. Моля, опитайте отново по-късно.",
    consent: "Съгласявам се данните ми да бъдат съхранявани с цел отговор на съобщението ми.",
    privacy_policy: "Политика за поверителност",
    consent_required:
        "Моля, дайте съгласие за съхраняването на данните ви, за да изпратите съобщението си.",
    show_qr: "Покажи QR код",
    qr_label: "QR код на тази визитка",
    add_to_apple_wallet: "Добави в Apple Wallet",
    add_to_google_wallet: "Добавяне към Google Wallet",
    my_card: "Моята дигитална визитка",
    form: FormErrors {
        required: "Полето „{label}“ е задължително.",
        string: "Полето „{label}“ трябва да съдържа текст.",
        max_chars: "Максималният брой знаци в полето „{label}“ е {n}.",
        email: "Моля, въведете валиден имейл адрес в полето „{label}“.",
        format: "Форматът на полето „{label}“ е невалиден.",
    },
};
const CS: Strings = Strings {
    save_contact: "Uložit kontakt",
    email: "E-mail",
    call: "Zavolat",
    website: "Web",
    book: "Rezervovat schůzku",
    video: "Přehrát video",
    directions: "Navigovat",
    get_in_touch: "Napište mi",
    name: "Jméno",
    phone: "Telefon",
    message: "Zpráva",
    send: "Odeslat",
    thanks: "Děkujeme! Vaše zpráva byla odeslána.",
    not_found: "Tato vizitka není dostupná.",
    made_with: "Vytvořeno s Digital Business Card",
    fix_errors: "Opravte prosím chyby níže.",
    too_many: "Již jste odeslali několik zpráv. Zkuste to prosím později.",
    unavailable: "Něco se pokazilo. Zkuste to prosím později.",
    consent: "Souhlasím s uložením svých údajů za účelem odpovědi na mou zprávu.",
    privacy_policy: "Zásady ochrany osobních údajů",
    consent_required: "Pro odeslání zprávy prosím souhlaste s uložením svých údajů.",
    show_qr: "Zobrazit QR kód",
    qr_label: "QR kód této vizitky",
    add_to_apple_wallet: "Přidat do Apple Wallet",
    add_to_google_wallet: "Přidat do Google Wallet",
    my_card: "Moje digitální vizitka",
    form: FormErrors {
        required: "Pole „{label}“ je povinné.",
        string: "Pole „{label}“ musí obsahovat text.",
        max_chars: "Maximální počet znaků v poli „{label}“ je {n}.",
        email: "Do pole „{label}“ zadejte prosím platnou e-mailovou adresu.",
        format: "Pole „{label}“ má neplatný formát.",
    },
};
const DA: Strings = Strings {
    save_contact: "Gem kontakt",
    email: "E-mail",
    call: "Ring",
    website: "Hjemmeside",
    book: "Book et møde",
    video: "Se video",
    directions: "Rutevejledning",
    get_in_touch: "Kontakt mig",
    name: "Navn",
    phone: "Telefon",
    message: "Besked",
    send: "Send",
    thanks: "Tak! Din besked er sendt.",
    not_found: "Dette kort er ikke tilgængeligt.",
    made_with: "Lavet med Digital Business Card",
    fix_errors: "Ret venligst fejlene nedenfor.",
    too_many: "Du har allerede sendt flere beskeder. Prøv igen senere.",
    unavailable: "Noget gik galt. Prøv igen senere.",
    consent: "Jeg accepterer, at mine oplysninger gemmes, så min besked kan besvares.",
    privacy_policy: "Privatlivspolitik",
    consent_required:
        "Du skal acceptere, at dine oplysninger gemmes, for at kunne sende din besked.",
    show_qr: "Vis QR-kode",
    qr_label: "QR-kode til dette kort",
    add_to_apple_wallet: "Føj til Apple Wallet",
    add_to_google_wallet: "Føj til Google Wallet",
    my_card: "Mit digitale visitkort",
    form: FormErrors {
        required: "Feltet »{label}« skal udfyldes.",
        string: "Feltet »{label}« skal indeholde tekst.",
        max_chars: "Feltet »{label}« må højst indeholde {n} tegn.",
        email: "Feltet »{label}« skal indeholde en gyldig e-mailadresse.",
        format: "Feltet »{label}« har et ugyldigt format.",
    },
};
const EL: Strings = Strings {
    save_contact: "Αποθήκευση επαφής",
    email: "Email",
    call: "Κλήση",
    website: "Ιστότοπος",
    book: "Κλείστε ραντεβού",
    video: "Δείτε το βίντεο",
    directions: "Οδηγίες",
    get_in_touch: "Επικοινωνία",
    name: "Όνομα",
    phone: "Τηλέφωνο",
    message: "Μήνυμα",
    send: "Αποστολή",
    thanks: "Ευχαριστούμε! Το μήνυμά σας στάλθηκε.",
    not_found: "Αυτή η κάρτα δεν είναι διαθέσιμη.",
    made_with: "Δημιουργήθηκε με Digital Business Card",
    fix_errors: "Διορθώστε τα παρακάτω σφάλματα.",
    too_many: "Έχετε ήδη στείλει αρκετά μηνύματα. Δοκιμάστε ξανά αργότερα.",
    unavailable: "Κάτι πήγε στραβά. Δοκιμάστε ξανά αργότερα.",
    consent: "Συμφωνώ με την αποθήκευση των στοιχείων μου για την απάντηση στο μήνυμά μου.",
    privacy_policy: "Πολιτική απορρήτου",
    consent_required:
        "Για να στείλετε το μήνυμά σας, συμφωνήστε με την αποθήκευση των στοιχείων σας.",
    show_qr: "Εμφάνιση κωδικού QR",
    qr_label: "Κωδικός QR αυτής της κάρτας",
    add_to_apple_wallet: "Προσθήκη στο Apple Wallet",
    add_to_google_wallet: "Προσθήκη στο Google Wallet",
    my_card: "Η ψηφιακή επαγγελματική μου κάρτα",
    form: FormErrors {
        required: "Το πεδίο «{label}» είναι υποχρεωτικό.",
        string: "Το πεδίο «{label}» πρέπει να περιέχει κείμενο.",
        max_chars: "Το πεδίο «{label}» δεν μπορεί να υπερβαίνει τους {n} χαρακτήρες.",
        email: "Το πεδίο «{label}» πρέπει να περιέχει έγκυρη διεύθυνση email.",
        format: "Το πεδίο «{label}» δεν έχει έγκυρη μορφή.",
    },
};
const ES: Strings = Strings {
    save_contact: "Guardar contacto",
    email: "Correo",
    call: "Llamar",
    website: "Sitio web",
    book: "Reservar una cita",
    video: "Ver vídeo",
    directions: "Cómo llegar",
    get_in_touch: "Contacto",
    name: "Nombre",
    phone: "Teléfono",
    message: "Mensaje",
    send: "Enviar",
    thanks: "¡Gracias! Tu mensaje ha sido enviado.",
    not_found: "Esta tarjeta no está disponible.",
    made_with: "Hecho con Digital Business Card",
    fix_errors: "Corrige los errores a continuación.",
    too_many: "Ya has enviado varios mensajes. Inténtalo de nuevo más tarde.",
    unavailable: "Algo ha salido mal. Inténtalo de nuevo más tarde.",
    consent: "Acepto que mis datos se guarden para responder a mi mensaje.",
    privacy_policy: "Política de privacidad",
    consent_required: "Acepta el almacenamiento de tus datos para enviar tu mensaje.",
    show_qr: "Mostrar código QR",
    qr_label: "Código QR de esta tarjeta",
    add_to_apple_wallet: "Añadir a Apple Wallet",
    add_to_google_wallet: "Añadir a Google Wallet",
    my_card: "Mi tarjeta de visita digital",
    form: FormErrors {
        required: "El campo «{label}» es obligatorio.",
        string: "El campo «{label}» debe contener texto.",
        max_chars: "El campo «{label}» no puede superar los {n} caracteres.",
        email: "El campo «{label}» debe contener una dirección de correo electrónico válida.",
        format: "El campo «{label}» tiene un formato no válido.",
    },
};
const FR: Strings = Strings {
    save_contact: "Enregistrer le contact",
    email: "E-mail",
    call: "Appeler",
    website: "Site web",
    book: "Prendre rendez-vous",
    video: "Voir la vidéo",
    directions: "Itinéraire",
    get_in_touch: "Me contacter",
    name: "Nom",
    phone: "Téléphone",
    message: "Message",
    send: "Envoyer",
    thanks: "Merci ! Votre message a été envoyé.",
    not_found: "Cette carte n'est pas disponible.",
    made_with: "Créé avec Digital Business Card",
    fix_errors: "Veuillez corriger les erreurs ci-dessous.",
    too_many: "Vous avez déjà envoyé plusieurs messages. Veuillez réessayer plus tard.",
    unavailable: "Une erreur s'est produite. Veuillez réessayer plus tard.",
    consent: "J'accepte que mes données soient enregistrées pour répondre à mon message.",
    privacy_policy: "Politique de confidentialité",
    consent_required:
        "Veuillez accepter l'enregistrement de vos données pour envoyer votre message.",
    show_qr: "Afficher le code QR",
    qr_label: "Code QR de cette carte",
    add_to_apple_wallet: "Ajouter à Apple Wallet",
    add_to_google_wallet: "Ajouter à Google Wallet",
    my_card: "Ma carte de visite numérique",
    form: FormErrors {
        required: "Le champ « {label} » est obligatoire.",
        string: "Le champ « {label} » doit contenir du texte.",
        max_chars: "Le champ « {label} » ne doit pas dépasser {n} caractères.",
        email: "Le champ « {label} » doit contenir une adresse e-mail valide.",
        format: "Le format du champ « {label} » n'est pas valide.",
    },
};
const HR: Strings = Strings {
    save_contact: "Spremi kontakt",
    email: "E-pošta",
    call: "Nazovi",
    website: "Web stranica",
    book: "Rezerviraj sastanak",
    video: "Pogledaj video",
    directions: "Upute",
    get_in_touch: "Javite se",
    name: "Ime",
    phone: "Telefon",
    message: "Poruka",
    send: "Pošalji",
    thanks: "Hvala! Vaša poruka je poslana.",
    not_found: "Ova posjetnica nije dostupna.",
    made_with: "Izrađeno s Digital Business Card",
    fix_errors: "Molimo ispravite pogreške u nastavku.",
    too_many: "Već ste poslali nekoliko poruka. Molimo pokušajte ponovno kasnije.",
    unavailable: "Nešto je pošlo po zlu. Molimo pokušajte ponovno kasnije.",
    consent: "Slažem se s pohranom svojih podataka radi odgovora na moju poruku.",
    privacy_policy: "Pravila o privatnosti",
    consent_required: "Molimo prihvatite pohranu svojih podataka kako biste poslali poruku.",
    show_qr: "Prikaži QR kod",
    qr_label: "QR kod ove posjetnice",
    add_to_apple_wallet: "Dodaj u Apple Wallet",
    add_to_google_wallet: "Dodaj u Google Wallet",
    my_card: "Moja digitalna posjetnica",
    form: FormErrors {
        required: "Polje „{label}” je obavezno.",
        string: "Polje „{label}” mora sadržavati tekst.",
        max_chars: "Najveći dopušteni broj znakova u polju „{label}” je {n}.",
        email: "Polje „{label}” mora sadržavati valjanu adresu e-pošte.",
        format: "Polje „{label}” nije u ispravnom formatu.",
    },
};
const HU: Strings = Strings {
    save_contact: "Névjegy mentése",
    email: "E-mail",
    call: "Hívás",
    website: "Weboldal",
    book: "Időpontfoglalás",
    video: "Videó megtekintése",
    directions: "Útvonal",
    get_in_touch: "Kapcsolatfelvétel",
    name: "Név",
    phone: "Telefon",
    message: "Üzenet",
    send: "Küldés",
    thanks: "Köszönjük! Üzenetét elküldtük.",
    not_found: "Ez a névjegykártya nem érhető el.",
    made_with: "Készült: Digital Business Card",
    fix_errors: "Kérjük, javítsa az alábbi hibákat.",
    too_many: "Már több üzenetet is elküldött. Kérjük, próbálja újra később.",
    unavailable: "Hiba történt. Kérjük, próbálja újra később.",
    consent: "Hozzájárulok, hogy adataimat üzenetem megválaszolása céljából tárolják.",
    privacy_policy: "Adatvédelmi tájékoztató",
    consent_required: "Kérjük, járuljon hozzá adatai tárolásához az üzenet elküldéséhez.",
    show_qr: "QR-kód megjelenítése",
    qr_label: "A névjegy QR-kódja",
    add_to_apple_wallet: "Hozzáadás az Apple Wallethez",
    add_to_google_wallet: "Hozzáadás a Google Wallethez",
    my_card: "Digitális névjegykártyám",
    form: FormErrors {
        required: "{label}: kötelező mező.",
        string: "{label}: csak szöveg adható meg.",
        max_chars: "{label}: legfeljebb {n} karakter adható meg.",
        email: "{label}: kérjük, érvényes e-mail-címet adjon meg.",
        format: "{label}: érvénytelen formátum.",
    },
};
const IT: Strings = Strings {
    save_contact: "Salva contatto",
    email: "Email",
    call: "Chiama",
    website: "Sito web",
    book: "Prenota un incontro",
    video: "Guarda il video",
    directions: "Indicazioni",
    get_in_touch: "Contattami",
    name: "Nome",
    phone: "Telefono",
    message: "Messaggio",
    send: "Invia",
    thanks: "Grazie! Il tuo messaggio è stato inviato.",
    not_found: "Questo biglietto non è disponibile.",
    made_with: "Creato con Digital Business Card",
    fix_errors: "Correggi gli errori qui sotto.",
    too_many: "Hai già inviato diversi messaggi. Riprova più tardi.",
    unavailable: "Si è verificato un errore. Riprova più tardi.",
    consent: "Acconsento alla conservazione dei miei dati per rispondere al mio messaggio.",
    privacy_policy: "Informativa sulla privacy",
    consent_required: "Per inviare il messaggio, acconsenti alla conservazione dei tuoi dati.",
    show_qr: "Mostra codice QR",
    qr_label: "Codice QR di questo biglietto",
    add_to_apple_wallet: "Aggiungi a Apple Wallet",
    add_to_google_wallet: "Aggiungi a Google Wallet",
    my_card: "Il mio biglietto da visita digitale",
    form: FormErrors {
        required: "Il campo «{label}» è obbligatorio.",
        string: "Il campo «{label}» deve contenere del testo.",
        max_chars: "Il campo «{label}» non può superare i {n} caratteri.",
        email: "Il campo «{label}» deve contenere un indirizzo email valido.",
        format: "Il campo «{label}» ha un formato non valido.",
    },
};
const NL: Strings = Strings {
    save_contact: "Contact opslaan",
    email: "E-mail",
    call: "Bellen",
    website: "Website",
    book: "Afspraak maken",
    video: "Video bekijken",
    directions: "Route",
    get_in_touch: "Neem contact op",
    name: "Naam",
    phone: "Telefoon",
    message: "Bericht",
    send: "Versturen",
    thanks: "Bedankt! Je bericht is verzonden.",
    not_found: "Deze kaart is niet beschikbaar.",
    made_with: "Gemaakt met Digital Business Card",
    fix_errors: "Corrigeer de fouten hieronder.",
    too_many: "Je hebt al meerdere berichten verstuurd. Probeer het later opnieuw.",
    unavailable: "Er is iets misgegaan. Probeer het later opnieuw.",
    consent:
        "Ik ga ermee akkoord dat mijn gegevens worden opgeslagen om mijn bericht te beantwoorden.",
    privacy_policy: "Privacybeleid",
    consent_required: "Ga akkoord met het opslaan van je gegevens om je bericht te versturen.",
    show_qr: "QR-code tonen",
    qr_label: "QR-code van dit visitekaartje",
    add_to_apple_wallet: "Voeg toe aan Apple Wallet",
    add_to_google_wallet: "Toevoegen aan Google Wallet",
    my_card: "Mijn digitale visitekaartje",
    form: FormErrors {
        required: "Het veld ‘{label}’ is verplicht.",
        string: "Het veld ‘{label}’ moet tekst bevatten.",
        max_chars: "Het veld ‘{label}’ mag maximaal {n} tekens bevatten.",
        email: "Het veld ‘{label}’ moet een geldig e-mailadres bevatten.",
        format: "Het veld ‘{label}’ heeft een ongeldig formaat.",
    },
};
const PL: Strings = Strings {
    save_contact: "Zapisz kontakt",
    email: "E-mail",
    call: "Zadzwoń",
    website: "Strona WWW",
    book: "Umów spotkanie",
    video: "Obejrzyj wideo",
    directions: "Dojazd",
    get_in_touch: "Skontaktuj się",
    name: "Imię i nazwisko",
    phone: "Telefon",
    message: "Wiadomość",
    send: "Wyślij",
    thanks: "Dziękujemy! Twoja wiadomość została wysłana.",
    not_found: "Ta wizytówka jest niedostępna.",
    made_with: "Stworzone w Digital Business Card",
    fix_errors: "Popraw poniższe błędy.",
    too_many: "Wysłano już kilka wiadomości. Spróbuj ponownie później.",
    unavailable: "Coś poszło nie tak. Spróbuj ponownie później.",
    consent: "Wyrażam zgodę na przechowywanie moich danych w celu odpowiedzi na moją wiadomość.",
    privacy_policy: "Polityka prywatności",
    consent_required: "Aby wysłać wiadomość, wyraź zgodę na przechowywanie swoich danych.",
    show_qr: "Pokaż kod QR",
    qr_label: "Kod QR tej wizytówki",
    add_to_apple_wallet: "Dodaj do Apple Wallet",
    add_to_google_wallet: "Dodaj do Portfela Google",
    my_card: "Moja cyfrowa wizytówka",
    form: FormErrors {
        required: "Pole „{label}” jest wymagane.",
        string: "Pole „{label}” musi zawierać tekst.",
        max_chars: "Maksymalna liczba znaków w polu „{label}” to {n}.",
        email: "Pole „{label}” musi zawierać prawidłowy adres e-mail.",
        format: "Pole „{label}” ma nieprawidłowy format.",
    },
};
const PT: Strings = Strings {
    save_contact: "Adicionar aos contactos",
    email: "E-mail",
    call: "Ligar",
    website: "Site",
    book: "Marcar reunião",
    video: "Ver vídeo",
    directions: "Direções",
    get_in_touch: "Fale comigo",
    name: "Nome",
    phone: "Telefone",
    message: "Mensagem",
    send: "Enviar",
    thanks: "Obrigado! A sua mensagem foi enviada.",
    not_found: "Este cartão não está disponível.",
    made_with: "Criado com Digital Business Card",
    fix_errors: "Corrija os erros abaixo.",
    too_many: "Já enviou várias mensagens. Tente novamente mais tarde.",
    unavailable: "Ocorreu um erro. Tente novamente mais tarde.",
    consent: "Aceito que os meus dados sejam guardados para responder à minha mensagem.",
    privacy_policy: "Política de privacidade",
    consent_required: "Aceite o armazenamento dos seus dados para enviar a sua mensagem.",
    show_qr: "Mostrar o código QR",
    qr_label: "Código QR deste cartão",
    add_to_apple_wallet: "Adicionar à Apple Wallet",
    add_to_google_wallet: "Adicionar à Google Wallet",
    my_card: "O meu cartão de visita digital",
    form: FormErrors {
        required: "O campo «{label}» é obrigatório.",
        string: "O campo «{label}» deve conter texto.",
        max_chars: "O campo «{label}» não pode ter mais de {n} caracteres.",
        email: "O campo «{label}» deve conter um endereço de e-mail válido.",
        format: "O campo «{label}» tem um formato inválido.",
    },
};
const RO: Strings = Strings {
    save_contact: "Salvează contactul",
    email: "E-mail",
    call: "Sună",
    website: "Site web",
    book: "Programează o întâlnire",
    video: "Vezi videoclipul",
    directions: "Indicații",
    get_in_touch: "Contactează-mă",
    name: "Nume",
    phone: "Telefon",
    message: "Mesaj",
    send: "Trimite",
    thanks: "Mulțumim! Mesajul a fost trimis.",
    not_found: "Această carte de vizită nu este disponibilă.",
    made_with: "Creat cu Digital Business Card",
    fix_errors: "Corectează erorile de mai jos.",
    too_many: "Ai trimis deja mai multe mesaje. Încearcă din nou mai târziu.",
    unavailable: "A apărut o eroare. Încearcă din nou mai târziu.",
    consent: "Sunt de acord ca datele mele să fie stocate pentru a primi răspuns la mesajul meu.",
    privacy_policy: "Politica de confidențialitate",
    consent_required:
        "Pentru a trimite mesajul, te rugăm să fii de acord cu stocarea datelor tale.",
    show_qr: "Afișează codul QR",
    qr_label: "Codul QR al acestei cărți de vizită",
    add_to_apple_wallet: "Adaugă în Apple Wallet",
    add_to_google_wallet: "Adaugă în Google Wallet",
    my_card: "Cartea mea de vizită digitală",
    form: FormErrors {
        required: "Câmpul „{label}” este obligatoriu.",
        string: "Câmpul „{label}” trebuie să conțină text.",
        max_chars: "Numărul maxim de caractere pentru câmpul „{label}” este {n}.",
        email: "Câmpul „{label}” trebuie să conțină o adresă de e-mail validă.",
        format: "Câmpul „{label}” are un format nevalid.",
    },
};
const SK: Strings = Strings {
    save_contact: "Uložiť kontakt",
    email: "E-mail",
    call: "Zavolať",
    website: "Web",
    book: "Rezervovať stretnutie",
    video: "Pozrieť video",
    directions: "Navigovať",
    get_in_touch: "Napíšte mi",
    name: "Meno",
    phone: "Telefón",
    message: "Správa",
    send: "Odoslať",
    thanks: "Ďakujeme! Vaša správa bola odoslaná.",
    not_found: "Táto vizitka nie je dostupná.",
    made_with: "Vytvorené s Digital Business Card",
    fix_errors: "Opravte prosím chyby nižšie.",
    too_many: "Už ste odoslali niekoľko správ. Skúste to prosím neskôr.",
    unavailable: "Niečo sa pokazilo. Skúste to prosím neskôr.",
    consent: "Súhlasím s uložením svojich údajov na účely odpovede na moju správu.",
    privacy_policy: "Zásady ochrany osobných údajov",
    consent_required: "Na odoslanie správy prosím súhlaste s uložením svojich údajov.",
    show_qr: "Zobraziť QR kód",
    qr_label: "QR kód tejto vizitky",
    add_to_apple_wallet: "Pridať do Apple Wallet",
    add_to_google_wallet: "Pridať do Google Wallet",
    my_card: "Moja digitálna vizitka",
    form: FormErrors {
        required: "Pole „{label}“ je povinné.",
        string: "Pole „{label}“ musí obsahovať text.",
        max_chars: "Maximálny počet znakov v poli „{label}“ je {n}.",
        email: "Do poľa „{label}“ zadajte prosím platnú e-mailovú adresu.",
        format: "Pole „{label}“ má neplatný formát.",
    },
};
const SL: Strings = Strings {
    save_contact: "Shrani stik",
    email: "E-pošta",
    call: "Pokliči",
    website: "Spletna stran",
    book: "Rezerviraj sestanek",
    video: "Oglej si video",
    directions: "Navodila za pot",
    get_in_touch: "Pišite mi",
    name: "Ime",
    phone: "Telefon",
    message: "Sporočilo",
    send: "Pošlji",
    thanks: "Hvala! Vaše sporočilo je bilo poslano.",
    not_found: "Ta vizitka ni na voljo.",
    made_with: "Ustvarjeno z Digital Business Card",
    fix_errors: "Popravite spodnje napake.",
    too_many: "Poslali ste že več sporočil. Poskusite znova pozneje.",
    unavailable: "Prišlo je do napake. Poskusite znova pozneje.",
    consent: "Strinjam se s shranjevanjem svojih podatkov za odgovor na moje sporočilo.",
    privacy_policy: "Politika zasebnosti",
    consent_required: "Če želite poslati sporočilo, se strinjajte s shranjevanjem svojih podatkov.",
    show_qr: "Prikaži kodo QR",
    qr_label: "Koda QR te vizitke",
    add_to_apple_wallet: "Dodaj v Apple Wallet",
    add_to_google_wallet: "Dodaj v Google Wallet",
    my_card: "Moja digitalna vizitka",
    form: FormErrors {
        required: "Polje »{label}« je obvezno.",
        string: "Polje »{label}« mora vsebovati besedilo.",
        max_chars: "Največje dovoljeno število znakov v polju »{label}« je {n}.",
        email: "Polje »{label}« mora vsebovati veljaven e-poštni naslov.",
        format: "Polje »{label}« ima neveljavno obliko.",
    },
};
const SV: Strings = Strings {
    save_contact: "Spara kontakt",
    email: "E-post",
    call: "Ring",
    website: "Webbplats",
    book: "Boka ett möte",
    video: "Se video",
    directions: "Vägbeskrivning",
    get_in_touch: "Kontakta mig",
    name: "Namn",
    phone: "Telefon",
    message: "Meddelande",
    send: "Skicka",
    thanks: "Tack! Ditt meddelande har skickats.",
    not_found: "Det här kortet är inte tillgängligt.",
    made_with: "Skapad med Digital Business Card",
    fix_errors: "Rätta felen nedan.",
    too_many: "Du har redan skickat flera meddelanden. Försök igen senare.",
    unavailable: "Något gick fel. Försök igen senare.",
    consent: "Jag godkänner att mina uppgifter sparas så att mitt meddelande kan besvaras.",
    privacy_policy: "Integritetspolicy",
    consent_required: "Godkänn att dina uppgifter sparas för att skicka ditt meddelande.",
    show_qr: "Visa QR-kod",
    qr_label: "QR-kod för detta kort",
    add_to_apple_wallet: "Lägg till i Apple Wallet",
    add_to_google_wallet: "Lägg till i Google Wallet",
    my_card: "Mitt digitala visitkort",
    form: FormErrors {
        required: "Fältet ”{label}” måste fyllas i.",
        string: "Fältet ”{label}” måste innehålla text.",
        max_chars: "Fältet ”{label}” får innehålla högst {n} tecken.",
        email: "Fältet ”{label}” måste innehålla en giltig e-postadress.",
        format: "Fältet ”{label}” har ett ogiltigt format.",
    },
};
const UK: Strings = Strings {
    save_contact: "Зберегти контакт",
    email: "Email",
    call: "Зателефонувати",
    website: "Вебсайт",
    book: "Записатися на зустріч",
    video: "Переглянути відео",
    directions: "Маршрут",
    get_in_touch: "Зв'язатися",
    name: "Ім'я",
    phone: "Телефон",
    message: "Повідомлення",
    send: "Надіслати",
    thanks: "Дякуємо! Ваше повідомлення надіслано.",
    not_found: "Ця візитка недоступна.",
    made_with: "Створено з Digital Business Card",
    fix_errors: "Виправте помилки нижче.",
    too_many: "Ви вже надіслали кілька повідомлень. Спробуйте пізніше.",
    unavailable: "Щось пішло не так. Спробуйте пізніше.",
    consent: "Я погоджуюся на зберігання моїх даних для відповіді на моє повідомлення.",
    privacy_policy: "Політика конфіденційності",
    consent_required: "Щоб надіслати повідомлення, погодьтеся на зберігання своїх даних.",
    show_qr: "Показати QR-код",
    qr_label: "QR-код цієї візитки",
    add_to_apple_wallet: "Додати в Apple Wallet",
    add_to_google_wallet: "Додати в Google Гаманець",
    my_card: "Моя цифрова візитка",
    form: FormErrors {
        required: "Поле «{label}» обов'язкове для заповнення.",
        string: "Поле «{label}» має містити текст.",
        max_chars: "Максимальна кількість символів у полі «{label}» — {n}.",
        email: "Поле «{label}» має містити дійсну адресу електронної пошти.",
        format: "Поле «{label}» має неправильний формат.",
    },
};

/// Strings for a language code; English for anything else.
pub fn strings(lang: &str) -> &'static Strings {
    match lang {
        "de" => &DE,
        "bg" => &BG,
        "cs" => &CS,
        "da" => &DA,
        "el" => &EL,
        "es" => &ES,
        "fr" => &FR,
        "hr" => &HR,
        "hu" => &HU,
        "it" => &IT,
        "nl" => &NL,
        "pl" => &PL,
        "pt" => &PT,
        "ro" => &RO,
        "sk" => &SK,
        "sl" => &SL,
        "sv" => &SV,
        "uk" => &UK,
        _ => &EN,
    }
}

/// A lead-form validation message in the page's language, or `None` for a rule with no
/// translation here (the caller then shows the English message).
pub fn form_error(lang: &str, rule: Rule, label: &str) -> Option<String> {
    let form = &strings(lang).form;
    let template = match rule {
        Rule::Required => form.required,
        Rule::String => form.string,
        Rule::MaxChars(_) => form.max_chars,
        Rule::Email => form.email,
        Rule::Format => form.format,
        Rule::Url
        | Rule::MinChars(_)
        | Rule::Boolean
        | Rule::Choice
        | Rule::Integer
        | Rule::Min(_)
        | Rule::Array
        | Rule::Object
        | Rule::MaxItems(_)
        | Rule::Taken
        | Rule::Locked
        | Rule::Other => return None,
    };
    // `{n}` first, so a label can never be mistaken for a placeholder.
    let template = match rule {
        Rule::MaxChars(n) => template.replace("{n}", &n.to_string()),
        _ => template.to_string(),
    };
    Some(template.replace("{label}", label))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::lang::LANGUAGES;

    #[test]
    fn every_language_has_its_own_save_contact() {
        let mut seen = std::collections::HashSet::new();
        for lang in LANGUAGES {
            let s = strings(lang);
            assert!(!s.get(Text::SaveContact).is_empty());
            seen.insert(s.get(Text::SaveContact));
        }
        assert_eq!(seen.len(), 19);
        assert_eq!(strings("xx").get(Text::Send), "Send");
    }

    /// The label each rule is shown with on the lead form.
    fn label(lang: &str, rule: Rule) -> &'static str {
        let s = strings(lang);
        match rule {
            Rule::Email => s.get(Text::Email),
            Rule::Format => s.get(Text::Phone),
            Rule::MaxChars(_) => s.get(Text::Message),
            _ => s.get(Text::Name),
        }
    }

    const FORM_RULES: [Rule; 5] = [
        Rule::Required,
        Rule::String,
        Rule::MaxChars(255),
        Rule::Email,
        Rule::Format,
    ];

    #[test]
    fn every_language_has_its_own_new_texts_and_form_errors() {
        for text in [
            Text::TooMany,
            Text::Unavailable,
            Text::Consent,
            Text::PrivacyPolicy,
            Text::ConsentRequired,
            Text::ShowQr,
            Text::QrLabel,
            Text::AddToAppleWallet,
            Text::AddToGoogleWallet,
        ] {
            let mut seen = std::collections::HashSet::new();
            for lang in LANGUAGES {
                let value = strings(lang).get(text);
                assert!(!value.trim().is_empty(), "{lang}");
                seen.insert(value);
            }
            assert_eq!(seen.len(), 19);
        }
        for rule in FORM_RULES {
            let mut seen = std::collections::HashSet::new();
            for lang in LANGUAGES {
                let label = label(lang, rule);
                let message = form_error(lang, rule, label).expect("translated rule");
                assert!(!message.trim().is_empty(), "{lang} {rule:?}");
                assert!(message.contains(label), "{lang} {rule:?}: {message}");
                assert!(!message.contains('{'), "{lang} {rule:?}: {message}");
                seen.insert(message);
            }
            assert_eq!(seen.len(), 19, "{rule:?}");
        }
    }

    #[test]
    fn english_form_errors() {
        let en = |rule| form_error("en", rule, "Name").unwrap();
        assert_eq!(en(Rule::Required), "Name is required.");
        assert_eq!(en(Rule::String), "Name must be text.");
        assert_eq!(
            en(Rule::MaxChars(255)),
            "Name must not be longer than 255 characters."
        );
        assert_eq!(en(Rule::Email), "Name must be a valid email address.");
        assert_eq!(en(Rule::Format), "Name has an invalid format.");
        assert_eq!(
            strings("en").get(Text::TooMany),
            "You have already sent several messages. Please try again later."
        );
        assert_eq!(
            strings("en").get(Text::Unavailable),
            "Something went wrong. Please try again later."
        );
        assert_eq!(
            strings("en").get(Text::Consent),
            "I agree that my details are stored to answer my message."
        );
        assert_eq!(strings("en").get(Text::PrivacyPolicy), "Privacy policy");
        assert_eq!(
            strings("en").get(Text::ConsentRequired),
            "Please agree to the storage of your details to send your message."
        );
    }

    #[test]
    fn german_required_keeps_the_label() {
        let message = form_error("de", Rule::Required, "E-Mail").unwrap();
        assert!(message.contains("E-Mail"), "{message}");
    }

    #[test]
    fn max_chars_shows_the_limit_everywhere() {
        for lang in LANGUAGES {
            let message = form_error(lang, Rule::MaxChars(255), "X").unwrap();
            assert!(message.contains("255"), "{lang}: {message}");
        }
    }

    #[test]
    fn unknown_language_gives_english_and_other_rules_none() {
        for rule in FORM_RULES {
            assert_eq!(
                form_error("xx", rule, "Email"),
                form_error("en", rule, "Email")
            );
        }
        assert_eq!(
            strings("xx").get(Text::TooMany),
            strings("en").get(Text::TooMany)
        );
        assert_eq!(form_error("de", Rule::Other, "Name"), None);
        assert_eq!(form_error("en", Rule::Other, "Name"), None);
        assert_eq!(form_error("fr", Rule::Url, "Nom"), None);
    }
}
